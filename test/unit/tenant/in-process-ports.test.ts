import { describe, expect, it } from "vitest";
import type { InjectResult, SessionApi, StartRun } from "../../../src/contracts/session-api";
import type { SessionUpdate, TenantApi } from "../../../src/contracts/tenant-api";
import { DomainError } from "../../../src/domain/errors";
import type { SessionEntry } from "../../../src/protocol/session";
import { inProcessTenantPorts } from "../../../src/tenant/in-process-ports";

// The tenant object's in-process ports over fakes: the two hand-offs the domain no longer
// knows about (a run start's pending-entry claim, chat.inject's update) happen in them, and
// every other session call reaches the stub unchanged.

const KEY = "agent:main:main";
const REF = { tenantId: "t1", key: KEY, agentId: "main" };
const ENTRY = { sessionId: "s1", updatedAt: 1 } as SessionEntry;
const UPDATE = { key: KEY, version: 3 } as unknown as SessionUpdate;

type Calls = { startRun: StartRun[]; inject: boolean[]; published: SessionUpdate[]; claims: string[] };

function ports(claim: unknown, injectResult: InjectResult) {
  const calls: Calls = { startRun: [], inject: [], published: [], claims: [] };
  const session = {
    startRun: async (_ref: unknown, request: StartRun) => {
      calls.startRun.push(request);
      return { status: "started", runId: request.runId, sessionId: "s1" };
    },
    inject: async (_ref: unknown, _message: unknown, handOff?: boolean) => {
      calls.inject.push(handOff === true);
      return injectResult;
    },
    entry: async () => ENTRY,
  } as unknown as SessionApi;
  const tenant = {
    claimPendingSession: async (key: string) => {
      calls.claims.push(key);
      return claim;
    },
    publish: async (update: SessionUpdate) => {
      calls.published.push(update);
      return { hot: true, listening: true };
    },
  } as unknown as TenantApi;
  const env = {
    SESSIONS: { getByName: () => session },
    TENANTS: { getByName: () => ({}) },
    SCHEDULER: { getByName: () => ({}) },
    LEDGER: { getByName: () => ({}) },
    CHANNEL_INBOX: { getByName: () => ({}) },
    ATTACHMENTS: {} as R2Bucket,
  };
  return { calls, ports: inProcessTenantPorts(env, tenant, "t1", "https://example.test") };
}

const request = { runId: "r1", input: {}, runner: { type: "echo" } } as unknown as StartRun;
const appended = { appended: [{ messageId: "m1", seq: 4 }] } as unknown as InjectResult;

describe("the tenant object's in-process ports", () => {
  it("claim a new session's pending entry before its run starts and hand it to the session object", async () => {
    const { calls, ports: built } = ports({ entry: ENTRY, version: 2 }, appended);
    await built.sessions(KEY).startRun(REF, request);
    expect(calls.claims).toEqual([KEY]);
    expect(calls.startRun[0]?.claimed).toEqual({ entry: ENTRY, version: 2 });
  });

  it("pass `claimed: null` (nothing pending) on, and leave it out when the session is published", async () => {
    const none = ports(null, appended);
    await none.ports.sessions(KEY).startRun(REF, request);
    expect(none.calls.startRun[0]).toHaveProperty("claimed", null);
    const published = ports(undefined, appended);
    await published.ports.sessions(KEY).startRun(REF, request);
    expect(published.calls.startRun[0]).not.toHaveProperty("claimed");
  });

  it("refuse a run start over the sessions limit as the domain's rate limit, without reaching the session", async () => {
    const { calls, ports: built } = ports({ refused: { message: "too many sessions", retryAfterMs: 5000 } }, appended);
    const error = await Promise.resolve(built.sessions(KEY).startRun(REF, request)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).message).toBe("too many sessions");
    expect(calls.startRun).toEqual([]);
  });

  it("ask the session to hand an inject's update back, apply it as handed off, and answer without it", async () => {
    const { calls, ports: built } = ports(null, { ...appended, update: UPDATE } as InjectResult);
    const result = await built.sessions(KEY).inject(REF, { role: "assistant", content: [] });
    expect(calls.inject).toEqual([true]);
    expect(calls.published).toEqual([{ ...UPDATE, handedOff: true }]);
    expect(result).toEqual(appended);
  });

  it("publish nothing when the session kept its update (a run was active)", async () => {
    const { calls, ports: built } = ports(null, appended);
    await built.sessions(KEY).inject(REF, { role: "assistant", content: [] });
    expect(calls.published).toEqual([]);
  });

  it("pass every other session call to the stub as it is", async () => {
    const { ports: built } = ports(null, appended);
    expect(await built.sessions(KEY).entry()).toBe(ENTRY);
  });
});
