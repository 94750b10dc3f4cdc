import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, inject, it } from "vitest";
import {
  isStale,
  keyring,
  openValue,
  SECRET_STORAGE_UNAVAILABLE,
  type SecretKeyError,
  sealValue,
} from "../../../src/secrets/secret-crypto";
import { freshTenant, issueToken } from "../support/helpers";
import { GatewayClient } from "../support/ws-helpers";

const peer = `http://127.0.0.1:${inject("peerPort")}`;
const keyA = `a1:${btoa(String.fromCharCode(...new Uint8Array(32).fill(7)))}`;
const keyB = `b2:${btoa(String.fromCharCode(...new Uint8Array(32).fill(9)))}`;

describe("secret crypto (AES-256-GCM, key ids, rotation)", () => {
  it("seals and opens a value, bound to its tenant and name", async () => {
    const ring = await keyring({ SECRET_STORE_KEY: keyA });
    const sealed = await sealValue(ring, "t1", "OPENAI_API_KEY", "sk-live-123");
    expect(sealed.keyId).toBe("a1");
    expect(sealed.ciphertext).not.toContain("sk-live");
    expect(await openValue(ring, "t1", "OPENAI_API_KEY", sealed)).toBe("sk-live-123");
    // A row copied to another tenant or name does not open.
    await expect(openValue(ring, "t2", "OPENAI_API_KEY", sealed)).rejects.toThrow(/could not be decrypted/);
    await expect(openValue(ring, "t1", "OTHER", sealed)).rejects.toThrow(/could not be decrypted/);
    // Two seals of one value differ (fresh IV).
    expect((await sealValue(ring, "t1", "OPENAI_API_KEY", "sk-live-123")).iv).not.toBe(sealed.iv);
  });

  it("opens values sealed under a previous key after rotation, and says which key is missing", async () => {
    const before = await keyring({ SECRET_STORE_KEY: keyA });
    const sealed = await sealValue(before, "t1", "K", "v");
    const rotated = await keyring({ SECRET_STORE_KEY: keyB, SECRET_STORE_PREVIOUS_KEYS: ` ${keyA} ` });
    expect(await openValue(rotated, "t1", "K", sealed)).toBe("v");
    expect(isStale(rotated, sealed)).toBe(true);
    expect(isStale(rotated, await sealValue(rotated, "t1", "K", "v"))).toBe(false);
    const dropped = await keyring({ SECRET_STORE_KEY: keyB });
    await expect(openValue(dropped, "t1", "K", sealed)).rejects.toMatchObject({
      message: SECRET_STORAGE_UNAVAILABLE,
      variable: "SECRET_STORE_PREVIOUS_KEYS",
      problem: expect.stringMatching(/lacks key "a1"/),
    });
  });

  it("refuses a missing or malformed key without echoing it, naming the variable to the operator only", async () => {
    await expect(keyring({})).rejects.toMatchObject({
      message: SECRET_STORAGE_UNAVAILABLE,
      variable: "SECRET_STORE_KEY",
      problem: "not set",
    });
    const error = (await keyring({ SECRET_STORE_KEY: "k1:not-32-bytes" }).catch((e) => e)) as SecretKeyError;
    expect(error.message).toBe(SECRET_STORAGE_UNAVAILABLE);
    expect(error.problem).toMatch(/must be <keyId>:<base64 of 32 random bytes>/);
    expect(JSON.stringify({ ...error, message: error.message })).not.toContain("not-32-bytes");
    await expect(keyring({ SECRET_STORE_KEY: keyA, SECRET_STORE_PREVIOUS_KEYS: "bad" })).rejects.toMatchObject({
      variable: "SECRET_STORE_PREVIOUS_KEYS",
    });
  });
});

describe("the tenant secret store over HTTP and the gateway", () => {
  const open: GatewayClient[] = [];
  afterEach(() => {
    for (const client of open.splice(0)) client.ws.close();
  });

  it("stores write-only secrets: never listed with a value, env entries are; sealed at rest", async () => {
    const t = await freshTenant("sec");
    const put = await t.call("/v1/secrets/OPENAI_API_KEY", {
      method: "PUT",
      json: { value: "sk-top-secret-1", allowedHosts: ["API.openai.com"] },
    });
    expect(put.status).toBe(200);
    expect(put.data).toEqual({ ok: true, reloaded: false });
    expect((await t.call("/v1/secrets/REGION", { method: "PUT", json: { value: "eu", kind: "env" } })).status).toBe(
      200,
    );
    const list = await t.call("/v1/secrets");
    expect(list.status).toBe(200);
    expect(list.text).not.toContain("sk-top-secret-1");
    expect(list.data.entries).toMatchObject([
      { name: "OPENAI_API_KEY", kind: "secret", scopeKind: "team", scopeId: "", allowedHosts: ["api.openai.com"] },
      { name: "REGION", kind: "env", value: "eu" },
    ]);
    expect(list.data.entries[0]).not.toHaveProperty("value");
    // At rest: only ciphertext (with its key id) in the tenant object's table.
    await runInDurableObject(env.TENANTS.getByName(t.id), (_instance, state) => {
      const rows = state.storage.sql.exec("SELECT * FROM secret_store").toArray();
      expect(rows).toHaveLength(2);
      expect(rows[0]).toMatchObject({ name: "OPENAI_API_KEY", key_id: "test1" });
      expect(JSON.stringify(rows)).not.toContain("sk-top-secret-1");
      expect(JSON.stringify(rows)).not.toContain('"eu"');
    });
  });

  it("refuses bad names, empty secrets and non-admin callers with clear errors", async () => {
    const t = await freshTenant("sec-bad");
    const badName = await t.call("/v1/secrets/lower", { method: "PUT", json: { value: "x" } });
    expect(badName.status).toBe(400);
    expect(badName.data.error.message).toContain("Secret store name must match");
    const empty = await t.call("/v1/secrets/EMPTY", { method: "PUT", json: { value: "" } });
    expect(empty.status).toBe(400);
    expect(empty.data.error.message).toContain("Secret store value is empty");
    const envHosts = await t.call("/v1/secrets/E", {
      method: "PUT",
      json: { value: "x", kind: "env", allowedHosts: ["a.b"] },
    });
    expect(envHosts.data.error.message).toBe("Allowed hosts apply only to secret entries.");
    const tooBig = await t.call("/v1/secrets/BIG", { method: "PUT", json: { value: "x".repeat(65_537) } });
    expect(tooBig.data.error.message).toContain("exceeds 65536 UTF-8 bytes");
    const reader = await issueToken(t.id, ["operator.read", "operator.write"]);
    const refused = await t.call("/v1/secrets", { token: reader.token });
    expect(refused.status).toBe(403);
    expect((await t.call("/v1/secrets/NOPE", { method: "DELETE" })).status).toBe(404);
  });

  it("serves secrets.store.list/set/delete with OpenClaw's shapes and admin scope", async () => {
    const t = await freshTenant("sec-gw");
    const client = await GatewayClient.connect({ path: t.prefix, token: t.token });
    open.push(client);
    const set = await client.request("secrets.store.set", { name: "MY_KEY", value: "v-123", kind: "secret" });
    expect(set).toMatchObject({ ok: true, payload: { ok: true, reloaded: false } });
    const list = await client.request("secrets.store.list", {});
    expect(list.payload.entries).toEqual([
      expect.objectContaining({ name: "MY_KEY", kind: "secret", allowedHosts: [], updatedBy: "test" }),
    ]);
    expect(JSON.stringify(list)).not.toContain("v-123");
    const bad = await client.request("secrets.store.set", { name: "MY_KEY", value: "", kind: "secret" });
    expect(bad.ok).toBe(false);
    expect(bad.error.message).toContain("Secret store value is empty");
    expect((await client.request("secrets.store.delete", { name: "MY_KEY" })).payload).toEqual({
      ok: true,
      reloaded: false,
    });
    expect((await client.request("secrets.store.list", {})).payload).toEqual({ entries: [] });

    const reader = await issueToken(t.id, ["operator.read", "operator.write"]);
    const weak = await GatewayClient.connect({ path: t.prefix, token: reader.token });
    open.push(weak);
    const refused = await weak.request("secrets.store.list", {});
    expect(refused.ok).toBe(false);
    expect(refused.error.message).toBe("missing scope: operator.admin");
  });

  it("runs with a store key referenced from config; a missing entry fails the run naming the reference", async () => {
    const t = await freshTenant("sec-run");
    const runner = {
      type: "openai",
      baseUrl: `${peer}/v1`,
      model: "echo-model",
      apiKey: { source: "store", provider: "default", id: "MODEL_KEY" },
    };
    expect((await t.config({ agents: { defaults: { runner } } })).status).toBe(200);
    // The config carries the reference only; setting the entry now says the runtime sees it.
    const put = await t.call("/v1/secrets/MODEL_KEY", { method: "PUT", json: { value: "sk-run-1" } });
    expect(put.data).toEqual({ ok: true, reloaded: true });
    const send = async (key: string) => {
      const client = await GatewayClient.connect({ path: t.prefix, token: t.token });
      open.push(client);
      const started = await client.request("agent", { message: "hi", idempotencyKey: key, sessionKey: "main" });
      expect(started.ok).toBe(true);
      return client.request("agent.wait", { runId: key, timeoutMs: 10_000 });
    };
    expect((await send("sec-run-1")).payload.status).toBe("ok");
    await t.call("/v1/secrets/MODEL_KEY", { method: "DELETE" });
    const failed = await send("sec-run-2");
    expect(failed.payload.status).toBe("error");
    expect(failed.payload.error).toContain("apiKey secret reference store:default:MODEL_KEY is not set");
    expect(failed.payload.error).not.toContain("sk-run-1");
    // A host outside the entry's allowedHosts is refused before anything is sent.
    await t.call("/v1/secrets/MODEL_KEY", {
      method: "PUT",
      json: { value: "sk-run-2", allowedHosts: ["api.example.com"] },
    });
    const bound = await send("sec-run-3");
    expect(bound.payload.error).toContain('Secret "MODEL_KEY" is not allowed for host "127.0.0.1"');
    const config = await t.call("/v1/config");
    expect(config.text).toContain('"id":"MODEL_KEY"');
    expect(config.text).not.toContain("sk-run");
  });

  it("validates SecretRefs in config", async () => {
    const t = await freshTenant("sec-ref");
    const runner = (apiKey: unknown, extra: Record<string, unknown> = {}) => ({
      agents: { defaults: { runner: { type: "openai", baseUrl: "http://x.test/v1", model: "m", apiKey, ...extra } } },
    });
    const envRef = await t.config(runner({ source: "env", provider: "default", id: "OPENAI_API_KEY" }));
    expect(envRef.status).toBe(400);
    expect(envRef.data.error.message).toContain('only { source: "store" } SecretRefs are resolved here');
    const both = await t.config(runner({ source: "store", id: "K" }, { apiKeySecret: "MODEL_KEY_X" }));
    expect(both.data.error.message).toContain("set apiKey or apiKeySecret, not both");
    expect((await t.config(runner({ source: "store", id: "lower" }))).status).toBe(400);
    expect((await t.config(runner({ source: "store", id: "K" }))).status).toBe(200);
  });
});
