import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { AsyncLocalStorage } from "node:async_hooks";
import { describe, expect, it, onTestFinished } from "vitest";
import { type Units, unitsByClass, unitsPerOp } from "../../../bench/lib/usage-delta.mjs";
import { SessionObject } from "../../../src/session/session-object";
import { sessionObjectName } from "../../../src/stubs";
import { TenantObject } from "../../../src/tenant/tenant-object";
import { ADMIN, call, freshTenant, type TestTenant, user } from "../support/helpers";

/**
 * Issue 48's proof: what the usage endpoint reports for a scripted piece of a tenant's day equals
 * what the tenant's objects did, counted here by the test itself and not by the meter
 * (src/metering/): the rows of every statement the objects ran (a wrapper of this test's own on
 * each object's `sql.exec`, summing the cursors' `rowsRead` / `rowsWritten`, which are what
 * Cloudflare bills) and the requests that came into them (every method of the class spied on its
 * prototype, a call the object makes on itself while serving one not counted). Exact counts: a
 * hand-off lost, counted twice, or a read's own cost leaking into the figures fails it.
 */

type Tally = { requests: number; rowsRead: number; rowsWritten: number };
type Counted = { tally: Tally; cursors: SqlStorageCursor<Record<string, SqlStorageValue>>[] };

const today = () => new Date().toISOString().slice(0, 10);
const tallies = new Map<string, Counted>();

/**
 * Counts each request into `Base`'s instances named for `tenantId` (the tally of the instance's
 * class), a call made while one is served excepted, as the runtime bills it.
 */
function countRequests(Base: { prototype: object }, objectClass: string, tenantId: string) {
  const inside = new AsyncLocalStorage<true>();
  const methods: [object, string, PropertyDescriptor | undefined][] = [];
  for (let proto = Base.prototype; proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    if (!Object.getOwnPropertyNames(proto).includes("constructor") || proto.constructor.name === "DurableObject") break;
    for (const name of Object.getOwnPropertyNames(proto)) {
      const own = Object.getOwnPropertyDescriptor(proto, name);
      if (name === "constructor" || typeof own?.value !== "function") continue;
      if (methods.some(([, seen]) => seen === name)) continue;
      methods.push([Base.prototype, name, Object.getOwnPropertyDescriptor(Base.prototype, name)]);
      const original = own.value as (...args: unknown[]) => unknown;
      Object.defineProperty(Base.prototype, name, {
        configurable: true,
        writable: true,
        value: function counted(this: { ctx: DurableObjectState }, ...args: unknown[]) {
          const name = this.ctx?.id.name ?? "";
          const mine = name === tenantId || name.startsWith(`${tenantId}/`);
          if (!mine || inside.getStore()) return original.apply(this, args);
          tallyOf(objectClass).tally.requests++;
          return inside.run(true, () => original.apply(this, args));
        },
      });
    }
  }
  onTestFinished(() => {
    for (const [proto, name, before] of methods) {
      if (before) Object.defineProperty(proto, name, before);
      else delete (proto as Record<string, unknown>)[name];
    }
  });
}

function tallyOf(objectClass: string): Counted {
  let counted = tallies.get(objectClass);
  if (!counted) {
    counted = { tally: { requests: 0, rowsRead: 0, rowsWritten: 0 }, cursors: [] };
    tallies.set(objectClass, counted);
  }
  return counted;
}

/** Keeps every cursor of the object's statements from now on (read when the tally is taken). */
async function countRows(stub: DurableObjectStub, objectClass: string) {
  await runInDurableObject(stub, (_object: unknown, state: DurableObjectState) => {
    const sql = state.storage.sql;
    const exec = sql.exec;
    const counted = tallyOf(objectClass);
    sql.exec = function tallied(this: SqlStorage, ...args: Parameters<SqlStorage["exec"]>) {
      const cursor = exec.apply(this, args);
      counted.cursors.push(cursor);
      return cursor;
    } as SqlStorage["exec"];
    onTestFinished(() => {
      sql.exec = exec;
    });
  });
}

/** An object's database size in bytes, read by the test (`databaseSize`: what Cloudflare bills as stored). */
function storedBytes(stub: DurableObjectStub): Promise<number> {
  return runInDurableObject(stub, (_object: unknown, state: DurableObjectState) => state.storage.sql.databaseSize);
}

/** The test's own count so far for a class. */
function counted(objectClass: string): Tally {
  const { tally, cursors } = tallyOf(objectClass);
  return {
    requests: tally.requests,
    rowsRead: cursors.reduce((sum, cursor) => sum + cursor.rowsRead, 0),
    rowsWritten: cursors.reduce((sum, cursor) => sum + cursor.rowsWritten, 0),
  };
}

const pick = (units: Units | undefined): Tally => ({
  requests: units?.requests ?? 0,
  rowsRead: units?.rowsRead ?? 0,
  rowsWritten: units?.rowsWritten ?? 0,
});
const minus = (a: Tally, b: Tally): Tally => ({
  requests: a.requests - b.requests,
  rowsRead: a.rowsRead - b.rowsRead,
  rowsWritten: a.rowsWritten - b.rowsWritten,
});

/** One usage answer of the operator's endpoint, as the cost bench reads it (units per class, today). */
async function endpoint(tenantId: string) {
  const res = await call(`/v1/admin/tenants/${tenantId}/usage?from=${today()}&to=${today()}`, { token: ADMIN });
  expect(res.status, res.text).toBe(200);
  return unitsByClass(res.data);
}

/** Waits until the test's count has been still for 2 s (the work's retry alarms and hand-offs done). */
async function quiet() {
  let last = "";
  let still = 0;
  for (let i = 0; i < 100 && still < 5; i++) {
    await new Promise((r) => setTimeout(r, 400));
    const now = JSON.stringify([counted("SessionObject"), counted("TenantObject")]);
    still = now === last ? still + 1 : 0;
    last = now;
  }
}

const KEY = "agent:main:billed-day";

/** A scripted slice of a day: turns on the echo runner, appends (one long), history pages, a list, a patch. */
async function scriptedDay(t: TestTenant) {
  for (let i = 0; i < 3; i++) {
    const res = await t.append(KEY, user(`turn ${i}`, { run: true }));
    expect(res.status, res.text).toBe(201);
    const run = await t.call(`/v1/runs/${res.data.runId}?wait=10`);
    expect(run.data.run.status).toBe("ok");
  }
  for (let i = 0; i < 2; i++) expect((await t.append(KEY, user(`note ${i}`))).status).toBe(201);
  // A long message: the session's database grows by pages (stored bytes to count).
  expect((await t.append(KEY, user(`long ${"x".repeat(60_000)}`))).status).toBe(201);
  for (let i = 0; i < 2; i++)
    expect((await t.call(`/sessions/${encodeURIComponent(KEY)}/history?limit=50`)).status).toBe(200);
  expect((await t.list("?limit=50")).status).toBe(200);
  expect((await t.patch(KEY, { label: "billed" })).status).toBe(200);
}

describe("the usage endpoint equals what the objects did", () => {
  it("a scripted day's requests, SQLite rows and stored bytes on the session and tenant objects, by the bench's arithmetic on the endpoint, are exactly the test's own count", async () => {
    const t = await freshTenant("usage-proof");
    // The objects exist before the count starts (a new object's tables are rows counted from its constructor).
    const warm = await t.append(KEY, user("warm", { run: true }));
    expect(warm.status).toBe(201);
    await t.call(`/v1/runs/${warm.data.runId}?wait=10`);
    countRequests(SessionObject, "SessionObject", t.id);
    countRequests(TenantObject, "TenantObject", t.id);
    await countRows(env.SESSIONS.getByName(sessionObjectName(t.id, KEY)), "SessionObject");
    await countRows(env.TENANTS.getByName(t.id), "TenantObject");
    // The bench's snapshots (bench/suites/cost.mjs `measure`): two before the work, one after,
    // each once the objects are still.
    await quiet();
    const first = await endpoint(t.id);
    await quiet();
    const second = await endpoint(t.id);
    await quiet();
    const sessionStub = env.SESSIONS.getByName(sessionObjectName(t.id, KEY));
    const tenantStub = env.TENANTS.getByName(t.id);
    const countedBefore = { session: counted("SessionObject"), tenant: counted("TenantObject") };
    const sizeBefore = { session: await storedBytes(sessionStub), tenant: await storedBytes(tenantStub) };
    const startedAt = performance.now();
    await scriptedDay(t);
    await quiet();
    const elapsedMs = performance.now() - startedAt;
    const work = {
      session: minus(counted("SessionObject"), countedBefore.session),
      tenant: minus(counted("TenantObject"), countedBefore.tenant),
    };
    const sizeAfter = { session: await storedBytes(sessionStub), tenant: await storedBytes(tenantStub) };
    const after = await endpoint(t.id);
    const bench = unitsPerOp(first, second, after, 1);
    console.log(
      `scripted day, counted by the test: ${JSON.stringify(work)}, bytes ${JSON.stringify(sizeAfter)} − ${JSON.stringify(sizeBefore)}; the bench: ${JSON.stringify(bench)}`,
    );
    expect(work.session.requests).toBeGreaterThan(10);
    expect(work.session.rowsWritten).toBeGreaterThan(10);
    expect({ session: pick(bench.SessionObject), tenant: pick(bench.TenantObject) }).toEqual(work);
    // Stored bytes: the databases' growth as the test reads their size.
    expect(sizeAfter.session).toBeGreaterThan(sizeBefore.session);
    expect({ session: bench.SessionObject!.storedBytes, tenant: bench.TenantObject!.storedBytes }).toEqual({
      session: sizeAfter.session - sizeBefore.session,
      tenant: sizeAfter.tenant - sizeBefore.tenant,
    });
    // Duration has no independent count here: the session was active for part of the work's wall time.
    expect(bench.SessionObject!.activeMs).toBeGreaterThan(0);
    expect(bench.SessionObject!.activeMs).toBeLessThanOrEqual(elapsedMs);
  });
});
