import { describe, expect, it } from "vitest";
import { REDACTED_SENTINEL } from "../../../src/render/config-redaction";
import { call, freshTenant, issueToken, type TestTenant } from "../support/helpers";
import { GatewayClient } from "../support/ws-helpers";

/**
 * `PATCH /v1/config` merges as the gateway's `config.patch` merges (issue 45, item 6): the Slack
 * setup written after Telegram's leaves Telegram on; PUT still replaces.
 */

const telegram = {
  enabled: true,
  botToken: "123456789:AA-telegram-token",
  webhookSecret: "a-long-random-secret",
  dmPolicy: "pairing",
};
const slack = { enabled: true, mode: "http", botToken: "xoxb-slack-token", signingSecret: "slack-signing-secret" };

const patch = (t: TestTenant, body: unknown, contentType = "application/merge-patch+json", query = "") =>
  t.call(`/v1/config${query}`, {
    method: "PATCH",
    headers: { "content-type": contentType },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

describe("PATCH /v1/config", () => {
  // The file's first test also waits for workerd's cold start (17–20 s on the loaded 2-core machine).
  it("adds Slack beside Telegram (PUT would have switched Telegram off), secrets stored, never answered", {
    timeout: 60_000,
  }, async () => {
    const t = await freshTenant("patch");
    expect((await t.config({ channels: { telegram } })).status).toBe(200);
    const res = await patch(t, { channels: { slack } });
    expect(res.status, res.text).toBe(200);
    expect(res.data.config.channels.telegram).toMatchObject({ enabled: true, dmPolicy: "pairing" });
    expect(res.data.config.channels.slack).toMatchObject({ enabled: true, mode: "http" });
    expect(res.data.changedPaths).toEqual(expect.arrayContaining(["channels.slack.enabled"]));
    const got = await t.call("/v1/config");
    expect(Object.keys(got.data.config.channels).sort()).toEqual(["slack", "telegram"]);
    for (const secret of [telegram.botToken, slack.botToken, slack.signingSecret]) {
      expect(res.text + got.text).not.toContain(secret);
    }
    // PUT replaces: the same Slack block sent whole leaves no Telegram.
    const put = await t.config({ channels: { slack } });
    expect(put.data.config.channels.telegram).toBeUndefined();
  });

  it("merges as config.patch: null deletes, lists of objects merge by id, replacePaths replaces", async () => {
    const t = await freshTenant("patch");
    await t.config({
      session: { mainKey: "main" },
      agents: { list: [{ id: "main", default: true }, { id: "ops" }] },
    });
    const merged = await patch(
      t,
      { session: null, agents: { list: [{ id: "ops", name: "Ops" }] } },
      "application/json",
    );
    expect(merged.status, merged.text).toBe(200);
    expect(merged.data.config).toEqual({
      agents: {
        list: [
          { id: "main", default: true },
          { id: "ops", name: "Ops" },
        ],
      },
    });
    const replaced = await patch(
      t,
      { agents: { list: [{ id: "main", default: true }] } },
      undefined,
      "?replacePaths=agents.list",
    );
    expect(replaced.data.config.agents.list).toEqual([{ id: "main", default: true }]);
    // The gateway's config.patch and the HTTP door give the same result for the same patch.
    const ws = await GatewayClient.connect({ path: t.prefix, token: t.token });
    const { payload: read } = await ws.request("config.get", {});
    const { payload } = await ws.request("config.patch", {
      raw: JSON.stringify({ agents: { list: [{ id: "ops" }] } }),
      baseHash: read.hash,
    });
    ws.ws.close();
    expect(payload.ok).toBe(true);
    const afterGateway = (await t.call("/v1/config")).data.config;
    expect(afterGateway.agents.list).toEqual([{ id: "main", default: true }, { id: "ops" }]);
  });

  it("answers credentials inside URLs redacted and keeps them when the sentinel is sent back", async () => {
    const t = await freshTenant("patch");
    const url = "https://deliver.example.com/in?X-Amz-Signature=s-789";
    const res = await patch(t, { delivery: { webhookUrl: url } });
    expect(res.status, res.text).toBe(200);
    expect(res.data.config.delivery.webhookUrl).toBe(REDACTED_SENTINEL);
    expect(res.text).not.toContain("s-789");
    const again = await patch(t, { delivery: { webhookUrl: REDACTED_SENTINEL }, session: { mainKey: "main" } });
    expect(again.status, again.text).toBe(200);
    expect(again.data.changedPaths).toEqual(["session.mainKey"]);
  });

  it("refuses what is wrong with a clear error and changes nothing", async () => {
    const t = await freshTenant("patch");
    await t.config({ session: { mainKey: "main" } });
    const cases: Array<[unknown, string | undefined, number, string, string]> = [
      [{ tools: { sessions: { visiblity: "all" } } }, undefined, 400, "invalid_request", "visiblity"],
      [[{ op: "add" }], undefined, 400, "invalid_request", "must be a JSON object"],
      ["{not json", undefined, 400, "invalid_json", "not valid JSON"],
      [{ session: null }, "text/plain", 415, "unsupported_media_type", "application/merge-patch+json"],
      [nested(40), undefined, 400, "invalid_request", "nested deeper than 16 levels"],
    ];
    for (const [body, type, status, errorType, text] of cases) {
      const res = await patch(t, body, type);
      expect(res.status, res.text).toBe(status);
      expect(res.data).toMatchObject({ ok: false, error: { type: errorType } });
      expect(res.data.error.message).toContain(text);
    }
    const reader = await issueToken(t.id, ["operator.read", "operator.write"]);
    const denied = await t.call("/v1/config", {
      method: "PATCH",
      token: reader.token,
      headers: { "content-type": "application/merge-patch+json" },
      body: "{}",
    });
    expect(denied.status).toBe(403);
    expect((await t.call("/v1/config")).data.config).toEqual({ session: { mainKey: "main" } });
  });
});

describe("PATCH /v1/config in the OpenAPI document", () => {
  it("takes a merge patch as either media type, and PUT says it replaces", async () => {
    const { data } = await call("/openapi.json", { token: null });
    const item = data.paths["/v1/config"];
    expect(Object.keys(item.patch.requestBody.content).sort()).toEqual([
      "application/json",
      "application/merge-patch+json",
    ]);
    expect(Object.keys(item.patch.responses)).toEqual(expect.arrayContaining(["200", "400", "409", "415"]));
    expect(item.put.description).toContain("PUT replaces");
  });
});

function nested(depth: number): unknown {
  let value: unknown = {};
  for (let level = 0; level < depth; level++) value = { a: value };
  return { session: value };
}
