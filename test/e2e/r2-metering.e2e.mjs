// The R2 meter against a real `wrangler dev` (issue 48): a worker request's own R2 calls (a
// sessions_spawn with attachments from /tools/invoke) are counted in the request and handed to the
// tenant's ledger after the response, through `ctx.waitUntil` (src/index.ts), which the vitest
// pool runs differently; the spawn's child, on its object, reads nothing and keeps the files
// (retainOnSessionKeep). The usage endpoint must show the three puts under `Worker` and the bytes.
// Run with `node --test test/e2e/r2-metering.e2e.mjs`.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { killAllServersNow, startServer } from "../../bench/lib/server.mjs";
import { createTenantToken, httpJson, waitFor } from "./http-json.mjs";

const ADMIN = "Bearer dev-admin-token";
process.once("exit", killAllServersNow);

let server;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

test("a spawn's attachments put by the worker are on the tenant's bill: 3 Class A under Worker, the bytes kept", {
  timeout: 120_000,
}, async () => {
  const id = `r2-e2e-${crypto.randomUUID().slice(0, 8)}`;
  const authorization = `Bearer ${await createTenantToken(server.baseUrl, id)}`;
  const config = await httpJson(server.baseUrl, "PUT", `/t/${id}/v1/config`, {
    authorization,
    body: {
      gateway: { tools: { allow: ["sessions_spawn"] } },
      tools: { sessions_spawn: { attachments: { enabled: true, retainOnSessionKeep: true } } },
    },
  });
  assert.equal(config.status, 200, config.text);
  const spawned = await httpJson(server.baseUrl, "POST", `/t/${id}/tools/invoke`, {
    authorization,
    body: {
      tool: "sessions_spawn",
      sessionKey: "main",
      args: {
        task: "read them",
        attachments: [
          { name: "notes.txt", content: "hello" },
          { name: "b.bin", content: "AAEC", encoding: "base64" },
        ],
      },
    },
  });
  assert.equal(spawned.status, 200, spawned.text);
  const billed = await waitFor(
    "the worker's R2 units in the ledger",
    async () => {
      const res = await httpJson(server.baseUrl, "GET", `/v1/admin/tenants/${id}/usage`, { authorization: ADMIN });
      assert.equal(res.status, 200, res.text);
      const worker = res.json.days.at(-1)?.objects?.Worker;
      return { done: worker?.r2ClassA === 3, worker, totals: res.json.totals };
    },
    20_000,
  );
  assert.equal(billed.worker.r2ClassB, 0);
  // Two files of 5 and 3 bytes and the manifest: more than 8 bytes, and the level is their sum.
  assert.ok(billed.worker.r2StoredBytes > 8, JSON.stringify(billed.worker));
  assert.equal(billed.totals.r2StoredBytes, billed.totals.units.r2StoredBytes);
  assert.equal(billed.totals.units.r2StoredBytes, billed.worker.r2StoredBytes);
});
