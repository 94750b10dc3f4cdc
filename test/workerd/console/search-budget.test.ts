import { listDurableObjectIds } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { SEARCH_SESSION_BYTES } from "../../../src/features/console/search";
import { sessionObjectName } from "../../../src/stubs";
import { freshTenant, type TestTenant, until } from "../support/helpers";
import { GatewayClient } from "../support/ws-helpers";

/** sessions.search asks only sessions with messages, and reads a bounded number of bytes. */

const open: GatewayClient[] = [];
afterEach(() => {
  for (const c of open.splice(0)) c.close();
});

const sessionIds = async () => (await listDurableObjectIds(env.SESSIONS)).map((id) => id.toString());
const sessionIdOf = (t: TestTenant, key: string) => env.SESSIONS.idFromName(sessionObjectName(t.id, key)).toString();

async function searcher(t: TestTenant) {
  await t.config({ tools: { sessions: { visibility: "all" } } });
  const client = await GatewayClient.connect({ path: t.prefix, token: t.token });
  open.push(client);
  return async (query: string) => {
    const answer = await client.request("sessions.search", { query, limit: 25 });
    expect(answer.ok, JSON.stringify(answer.error)).toBe(true);
    return answer.payload;
  };
}

describe("sessions.search bounds", () => {
  it("never wakes or creates the object of a session without messages", async () => {
    const t = await freshTenant("search-pending");
    const pending = "agent:main:never-written";
    expect((await t.patch(pending, { label: "needle label" })).status).toBe(200);
    expect((await t.append("agent:main:written", { role: "user", content: "a needle here" })).status).toBe(201);
    const search = await searcher(t);
    await until(
      () => search("needle"),
      (found) => found.hits.length === 1,
    );
    const found = await search("needle");
    expect(found.hits.map((hit: { sessionKey: string }) => hit.sessionKey)).toEqual(["agent:main:written"]);
    expect(await sessionIds()).not.toContain(sessionIdOf(t, pending));
  });

  it("stops a transcript's scan at its byte budget, newest first, and says the answer was cut", async () => {
    const t = await freshTenant("search-bytes");
    const key = "agent:main:big";
    const filler = "x".repeat(1_500_000);
    expect((await t.append(key, { role: "user", content: `needle ${filler}` })).status).toBe(201);
    // Newer messages worth more than the budget stand between the scan and the oldest one.
    const newer = Math.ceil(SEARCH_SESSION_BYTES / filler.length);
    for (let i = 0; i < newer; i++) {
      expect((await t.append(key, { role: "user", content: `${filler} ${i}` })).status).toBe(201);
    }
    expect((await t.append(key, { role: "assistant", content: "the last needle" })).status).toBe(201);
    const search = await searcher(t);
    const found = await until(
      () => search("needle"),
      (answer) => answer.hits.length > 0,
    );
    expect(found.hits.map((hit: { snippet: string }) => hit.snippet)).toEqual(["the last needle"]);
    expect(found.truncated).toBe(true);
    // A word found nowhere is looked for up to the budget too, and the answer says so.
    expect(await search("zzz-not-there")).toMatchObject({ hits: [], truncated: true });
  });
});
