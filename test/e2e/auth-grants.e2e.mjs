// Signed access grants against a real `wrangler dev` (docs/security.md, "Access grants"): past the
// isolate's 1 s access cache a token is answered from the grant in the local Cache API, and a
// revoke retires it there at once. Run with `node --test test/e2e/auth-grants.e2e.mjs`.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { killAllServersNow, startServer } from "../../bench/lib/server.mjs";
import { createTenantToken, httpJson } from "./http-json.mjs";

process.once("exit", killAllServersNow);

/** Longer than the isolate's access cache (ACCESS_TTL_MS, 1 s), shorter than a grant (30 s). */
const PAST_ACCESS_CACHE_MS = 1_500;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

let server;

before(async () => {
  server = await startServer();
});

after(async () => {
  await server?.stop();
});

test("a token answered from its grant past the access cache is refused right after its revoke", {
  timeout: 120_000,
}, async () => {
  const id = `grants-${crypto.randomUUID().slice(0, 8)}`;
  const token = await createTenantToken(server.baseUrl, id);
  const tokenId = /^ocs_([0-9a-f]{16})\./.exec(token)[1];
  const list = () =>
    httpJson(server.baseUrl, "GET", `/t/${id}/v1/sessions?limit=1`, { authorization: `Bearer ${token}` });
  assert.equal((await list()).status, 200);
  await sleep(PAST_ACCESS_CACHE_MS);
  assert.equal((await list()).status, 200, "served from the grant");
  const revoked = await httpJson(server.baseUrl, "DELETE", `/v1/admin/tenants/${id}/tokens/${tokenId}`, {
    authorization: "Bearer dev-admin-token",
  });
  assert.equal(revoked.status, 200, revoked.text);
  assert.equal((await list()).status, 401, "refused on the first request after the revoke");
  await sleep(PAST_ACCESS_CACHE_MS);
  assert.equal((await list()).status, 401, "and past the access cache");
});
