import { afterEach, describe, expect, it } from "vitest";
import { freshTenant, user } from "./helpers";
import { GatewayClient } from "./ws-helpers";

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
  it("applies a default limit of 100, counts every matching row and pages by offset with nextOffset", async () => {
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
