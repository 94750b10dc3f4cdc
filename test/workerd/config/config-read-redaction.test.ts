import { describe, expect, it } from "vitest";
import { configHash } from "../../../src/model/config-hash";
import { withAbsentFeaturesOff } from "../../../src/policy/absent-config-features";
import { REDACTED_SENTINEL } from "../../../src/render/config-redaction";
import { freshTenant, issueToken } from "../support/helpers";
import { GatewayClient } from "../support/ws-helpers";

/**
 * Credentials inside the config's URLs reach no reader: `config.get` (operator.read, OpenClaw's
 * scope) and `GET /v1/config` (now the same scope) both answer OpenClaw's sentinel, and a write
 * that sends the sentinel back keeps the stored value (issue 36, item 5).
 */

const PROXY = "https://alice:pa55word@proxy.example.com/v1?api_key=k-123";
const HOOK = "https://hooks.example.com/run?token=t-456";
const DELIVERY = "https://deliver.example.com/in?X-Amz-Signature=s-789";
const PLAIN = "https://api.openai.com/v1";
const stored = {
  agents: {
    defaults: { runner: { type: "openai", baseUrl: PLAIN, model: "m", apiKey: { source: "store", id: "OPENAI_KEY" } } },
    list: [
      { id: "main", runner: { type: "openai", baseUrl: PROXY, model: "m" } },
      { id: "hooked", runner: { type: "webhook", url: HOOK } },
    ],
  },
  delivery: { webhookUrl: DELIVERY },
};
const redacted = {
  agents: {
    defaults: stored.agents.defaults,
    list: [
      { id: "main", runner: { type: "openai", baseUrl: REDACTED_SENTINEL, model: "m" } },
      { id: "hooked", runner: { type: "webhook", url: REDACTED_SENTINEL } },
    ],
  },
  delivery: { webhookUrl: REDACTED_SENTINEL },
};
const SECRETS = ["pa55word", "k-123", "t-456", "s-789"];

describe("config reads redact credentials inside URLs", () => {
  it("on both doors, for a read-only token as for an admin; SecretRefs and plain URLs stay", async () => {
    const t = await freshTenant("redact");
    const put = await t.config(stored);
    expect(put.status, put.text).toBe(200);
    expect(put.data.config).toEqual(redacted);
    const reader = await issueToken(t.id, ["operator.read"]);
    for (const token of [reader.token, t.token]) {
      const got = await t.call("/v1/config", { token });
      expect(got.status).toBe(200);
      expect(got.data.config).toEqual(redacted);
      const ws = await GatewayClient.connect({ path: t.prefix, token });
      const { payload } = await ws.request("config.get", {});
      // config.get also answers the switches of features this service does not have, as off.
      const answered = withAbsentFeaturesOff(redacted);
      for (const field of ["config", "parsed", "resolved", "sourceConfig"])
        expect(payload[field], field).toEqual(answered);
      expect(JSON.parse(payload.raw)).toEqual(answered);
      expect(payload.hash).toBe(await configHash(stored as never));
      for (const secret of SECRETS) expect(got.text + JSON.stringify(payload)).not.toContain(secret);
      ws.ws.close();
    }
  });

  it("a write that sends the sentinel back keeps the stored URL (config.set, config.patch, PUT)", async () => {
    const t = await freshTenant("restore");
    await t.config(stored);
    const ws = await GatewayClient.connect({ path: t.prefix, token: t.token });
    const first = (await ws.request("config.get", {})).payload;
    const set = await ws.request("config.set", { raw: first.raw, baseHash: first.hash });
    expect(set.ok).toBe(true);
    expect(set.payload.hash).toBe(first.hash); // the very config that was stored
    expect(set.payload.config).toEqual(redacted);

    const patch = { agents: { list: [{ id: "main", name: "Main", runner: redacted.agents.list[0]!.runner }] } };
    const patched = await ws.request("config.patch", { raw: JSON.stringify(patch), baseHash: first.hash });
    expect(patched.ok).toBe(true);
    expect(patched.payload.changedPaths).toEqual(["agents.list"]);
    const renamed = structuredClone(stored);
    Object.assign(renamed.agents.list[0]!, { name: "Main" });
    expect(patched.payload.hash).toBe(await configHash(renamed as never));

    const again = await t.config((await t.call("/v1/config")).data.config);
    expect(again.status).toBe(200);
    expect((await ws.request("config.get", {})).payload.hash).toBe(await configHash(renamed as never));
    ws.ws.close();
  });

  it("refuses the sentinel where nothing is stored behind it, or outside a URL, in OpenClaw's words", async () => {
    const t = await freshTenant("sentinel");
    const ws = await GatewayClient.connect({ path: t.prefix, token: t.token });
    const { hash } = (await ws.request("config.get", {})).payload;
    const missing = await ws.request("config.set", {
      raw: JSON.stringify({ delivery: { webhookUrl: REDACTED_SENTINEL } }),
      baseHash: hash,
    });
    expect(missing.error).toMatchObject({
      code: "INVALID_REQUEST",
      message: `Sentinel value "${REDACTED_SENTINEL}" in key delivery.webhookUrl is not valid as real data`,
    });
    const named = await t.config({ agents: { list: [{ id: "main", name: REDACTED_SENTINEL }] } });
    expect(named.status).toBe(400);
    expect(named.data.error.message).toBe(
      `Reserved redaction sentinel "${REDACTED_SENTINEL}" is not valid config data (agents.list[0].name).`,
    );
    ws.ws.close();
  });

  it("shows capability URLs (secret path, ?k=, ?pwd=, #token=) as their origin only; a write back keeps them", async () => {
    const t = await freshTenant("capability");
    const capability = {
      agents: {
        list: [
          { id: "main", runner: { type: "webhook", url: "https://relay.example.com/in?k=Kc4pAbility" } },
          { id: "pwd", runner: { type: "webhook", url: "https://relay.example.com/in?pwd=Pw4pAbility" } },
          { id: "frag", runner: { type: "webhook", url: "https://relay.example.com/in#token=Fr4gAbility" } },
        ],
      },
      delivery: { webhookUrl: "https://hooks.slack.com/services/T0CAP/B0CAP/Sl4ckCapabilitySecret" },
    };
    const secrets = ["Kc4pAbility", "Pw4pAbility", "Fr4gAbility", "Sl4ckCapabilitySecret", "T0CAP"];
    expect((await t.config(capability)).status).toBe(200);
    const reader = await issueToken(t.id, ["operator.read"]);
    const got = await t.call("/v1/config", { token: reader.token });
    expect(got.data.config.delivery.webhookUrl).toBe("https://hooks.slack.com/…");
    expect(got.data.config.agents.list.map((a: { runner: { url: string } }) => a.runner.url)).toEqual([
      "https://relay.example.com/…",
      "https://relay.example.com/…",
      "https://relay.example.com/…",
    ]);
    const ws = await GatewayClient.connect({ path: t.prefix, token: reader.token });
    const { payload } = await ws.request("config.get", {});
    ws.ws.close();
    for (const secret of secrets) expect(got.text + JSON.stringify(payload)).not.toContain(secret);
    // The admin's write of what it read changes nothing.
    const again = await t.config((await t.call("/v1/config")).data.config);
    expect(again.status, again.text).toBe(200);
    const admin = await GatewayClient.connect({ path: t.prefix, token: t.token });
    expect((await admin.request("config.get", {})).payload.hash).toBe(await configHash(capability as never));
    admin.ws.close();
  });
});
