import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { LIST_TOTAL_COUNT_ROWS } from "../../../src/tenant/session-directory";
import { LIST_SEARCH_SCAN_ROWS } from "../../../src/tenant/sessions-list-store";
import { freshTenant, type TestTenant, until, user } from "../support/helpers";
import { GatewayClient } from "../support/ws-helpers";

/** sessions.list and the sessions_list tool page as OpenClaw's do: limits, totals and offsets. */

const open: GatewayClient[] = [];
afterEach(() => {
  for (const c of open.splice(0)) c.close();
});

/** A tenant with three sessions matching "pg" (and one that does not), and a gateway client. */
async function threeMatching() {
  const t = await freshTenant("paging");
  await t.config({ tools: { sessions: { visibility: "agent" } } });
  for (const key of ["pg-a", "pg-b", "pg-c", "other"]) await t.append(key, user("x"));
  const client = await GatewayClient.connect({ path: t.prefix, token: t.token });
  open.push(client);
  return { t, client };
}

const paging = (payload: Record<string, unknown>) => {
  const { count, totalCount, limitApplied, offset, nextOffset, hasMore } = payload;
  return { count, totalCount, limitApplied, offset, nextOffset, hasMore };
};

describe("sessions.list paging", () => {
  it("applies a default limit of 100, totals a short list exactly and pages with nextOffset", async () => {
    const { client } = await threeMatching();
    const list = async (params: Record<string, unknown>) => (await client.request("sessions.list", params)).payload;
    expect(paging(await list({ search: "pg", limit: 1 }))).toEqual({
      count: 1,
      totalCount: 3,
      limitApplied: 1,
      offset: undefined,
      nextOffset: 1,
      hasMore: true,
    });
    expect(paging(await list({ search: "pg", limit: 1, offset: 1 }))).toEqual({
      count: 1,
      totalCount: 3,
      limitApplied: 1,
      offset: 1,
      nextOffset: 2,
      hasMore: true,
    });
    expect(paging(await list({ search: "pg", limit: 1, offset: 2 }))).toEqual({
      count: 1,
      totalCount: 3,
      limitApplied: 1,
      offset: 2,
      nextOffset: null,
      hasMore: false,
    });
    expect(paging(await list({ search: "pg", offset: 5 }))).toEqual({
      count: 0,
      totalCount: 3,
      limitApplied: 100,
      offset: 5,
      nextOffset: null,
      hasMore: false,
    });
    const all = await list({});
    expect(paging(all)).toEqual({
      count: 4,
      totalCount: 4,
      limitApplied: 100,
      offset: undefined,
      nextOffset: null,
      hasMore: false,
    });
    expect("offset" in all).toBe(false);
    // The pages together are the whole list, each row once.
    const pages = [];
    for (let offset = 0; offset !== null; ) {
      const page = await list({ limit: 3, ...(offset ? { offset } : {}) });
      pages.push(...page.sessions.map((s: { key: string }) => s.key));
      offset = page.nextOffset;
    }
    expect(pages).toEqual(all.sessions.map((s: { key: string }) => s.key));
  });
});

/**
 * Writes `count` index rows straight into the tenant's SQLite (no session objects): keys
 * agent:main:bulk-<i>, row i updated at 1_000_000 + i (so bulk-<count-1> is the newest);
 * `needle` goes into the search text of the rows whose i is given.
 */
async function bulkRows(t: TestTenant, count: number, needleAt: number[] = []) {
  await runInDurableObject(env.TENANTS.getByName(t.id), (_instance, state) => {
    state.storage.sql.exec(
      `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?)
       INSERT INTO sessions (key, session_id, agent_id, kind, updated_at, version, search_text, is_cron_run, row)
       SELECT 'agent:main:bulk-' || i, 'sid-' || i, 'main', 'other', 1000000 + i, 1,
              'agent:main:bulk-' || i || CASE WHEN i IN (SELECT value FROM json_each(?)) THEN ' needle' ELSE '' END, 0,
              json_object('key', 'agent:main:bulk-' || i, 'sessionId', 'sid-' || i, 'agentId', 'main',
                          'kind', 'direct', 'updatedAt', 1000000 + i)
       FROM n`,
      count,
      JSON.stringify(needleAt),
    );
  });
}

describe("sessions.list at size", () => {
  const connect = async (t: TestTenant) => {
    const client = await GatewayClient.connect({ path: t.prefix, token: t.token });
    open.push(client);
    return async (params: Record<string, unknown>) => (await client.request("sessions.list", params)).payload;
  };

  it("serves at most 200 rows a page (limitApplied says so), and totalCount only where it is cheap to know", async () => {
    const t = await freshTenant("paging-max");
    const size = LIST_TOTAL_COUNT_ROWS + 500;
    await bulkRows(t, size);
    const list = await connect(t);
    const big = await list({ limit: 100_000 });
    expect(paging(big)).toEqual({
      count: 200,
      // More than LIST_TOTAL_COUNT_ROWS rows after the page: not counted.
      totalCount: undefined,
      limitApplied: 200,
      offset: undefined,
      nextOffset: 200,
      hasMore: true,
    });
    expect("totalCount" in big).toBe(false);
    // Near the end, the rest is counted: exact.
    const late = await list({ limit: 200, offset: size - 300 });
    expect(paging(late)).toMatchObject({ count: 200, totalCount: size, nextOffset: size - 100, hasMore: true });
    const last = await list({ limit: 200, offset: size - 100 });
    expect(paging(last)).toMatchObject({ count: 100, totalCount: size, nextOffset: null, hasMore: false });
    expect(last.sessions.at(-1).key).toBe("agent:main:bulk-0");
  });

  it("continues a page from where the last one ended: a session updated in between is not served twice", async () => {
    const { t, client } = await threeMatching();
    await t.append("pg-d", user("x"));
    const list = async (params: Record<string, unknown>) => (await client.request("sessions.list", params)).payload;
    const keys = (page: { sessions: { key: string }[] }) => page.sessions.map((s) => s.key);
    const first = await list({ search: "pg", limit: 2 });
    expect(first).toMatchObject({ count: 2, nextOffset: 2, hasMore: true });
    // The oldest session of the list moves to the top between the pages. Skipping two rows
    // (OFFSET) would serve the first page's last row again; the position does not.
    await t.append("pg-a", user("again"));
    await until(
      () => list({ search: "pg", limit: 1 }),
      (top) => top.sessions[0]?.key === "agent:main:pg-a",
    );
    const second = await list({ search: "pg", limit: 2, offset: 2 });
    const seen = [...keys(first), ...keys(second)];
    expect(new Set(seen).size).toBe(seen.length);
    expect(keys(second)).not.toContain("agent:main:pg-a");
  });

  it("a search looks at no more than its scan budget per call, and says when it stopped", async () => {
    const t = await freshTenant("paging-scan");
    // Only the oldest row matches: beyond the budget from the top.
    await bulkRows(t, LIST_SEARCH_SCAN_ROWS + 100, [0, LIST_SEARCH_SCAN_ROWS + 99]);
    const list = await connect(t);
    const cut = await list({ search: "needle", limit: 10 });
    // The newest row matched within the budget; the page stopped there, saying so, and continues.
    expect(paging(cut)).toMatchObject({ count: 1, nextOffset: 1, hasMore: true });
    expect(cut.truncationReason).toBe("scan-limit");
    expect(cut.sessions[0].key).toBe(`agent:main:bulk-${LIST_SEARCH_SCAN_ROWS + 99}`);
    const rest = await list({ search: "needle", limit: 10, offset: 1 });
    expect(paging(rest)).toMatchObject({ count: 1, totalCount: 2, nextOffset: null, hasMore: false });
    expect(rest.sessions[0].key).toBe("agent:main:bulk-0");
    expect(rest.truncationReason).toBeUndefined();
    // A search matching nothing within the budget answers an empty last page that says it stopped.
    const none = await list({ search: "no such text", limit: 10 });
    expect(paging(none)).toMatchObject({ count: 0, nextOffset: null, hasMore: false, totalCount: undefined });
    expect(none.truncationReason).toBe("scan-limit");
    // The service's own lookups (a short id, a slug: bounded by their limit) still look at every row.
    const lookup = await env.TENANTS.getByName(t.id).listSessions({ search: "needle", limit: 5 });
    expect(lookup.map((row) => row.key)).toEqual([
      `agent:main:bulk-${LIST_SEARCH_SCAN_ROWS + 99}`,
      "agent:main:bulk-0",
    ]);
  });
});

describe("sessions_list tool paging", () => {
  it("reports hasMore, nextOffset only when there is more, and limitApplied (default 100, at most 200)", async () => {
    const { t } = await threeMatching();
    const details = async (args: Record<string, unknown>) => {
      const res = await t.invoke("sessions_list", args);
      expect(res.status, res.text).toBe(200);
      return res.data.result.details;
    };
    const first = await details({});
    expect(first).toMatchObject({ count: 4, hasMore: false, limitApplied: 100 });
    expect("nextOffset" in first).toBe(false);
    const one = await details({ limit: 1 });
    expect(one).toMatchObject({ count: 1, hasMore: true, nextOffset: 1, limitApplied: 1 });
    const next = await details({ limit: 1, offset: one.nextOffset });
    expect(next).toMatchObject({ count: 1, hasMore: true, nextOffset: 2, limitApplied: 1 });
    expect(next.sessions[0].key).not.toBe(one.sessions[0].key);
    const last = await details({ limit: 3, offset: 1 });
    expect(last).toMatchObject({ count: 3, hasMore: false, limitApplied: 3 });
    expect((await details({ limit: 500 })).limitApplied).toBe(200);
  });
});
