import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, inject, it, onTestFinished } from "vitest";
import { LedgerObject } from "../../../src/ledger/ledger-object";
import { attachmentsOf } from "../../../src/metering/metered-env";
import { sessionObjectName } from "../../../src/stubs";
import { PEER_PNG_BASE64 } from "../../peers/peer-files";
import { ADMIN, call, createTenant, freshTenant, type TestTenant, until } from "../support/helpers";
import { peerTelegramChannel, postTelegramDm } from "../support/telegram-helpers";

/**
 * Issue 48: the R2 calls a tenant's work makes are on its bill, exactly. The test counts them
 * itself, below the service's wrapper (src/metering/metered-bucket.ts): a spy on the R2 binding's
 * own methods, every call whose key or prefix is the tenant's (put and list Class A, get and head
 * Class B, delete free, by Cloudflare's R2 pricing), and what the tenant keeps from a listing of
 * its prefix. The usage endpoint must say the same: a photo DM (download into R2, the quota's
 * listing, the model's read), the session's deletion (a listing and a free delete), a spawn's
 * attachments put by the worker itself (/tools/invoke); another tenant's R2 figures do not move.
 */

const PEER_PNG = Uint8Array.from(atob(PEER_PNG_BASE64), (c) => c.charCodeAt(0));
const peer = `http://127.0.0.1:${inject("peerPort")}`;
const SECRET = "tg-webhook-secret-r2-usage-0123";
let nextUpdateId = 970_000;

type R2Count = { r2ClassA: number; r2ClassB: number };
const CLASS_OF: Record<string, keyof R2Count | null> = {
  put: "r2ClassA",
  list: "r2ClassA",
  get: "r2ClassB",
  head: "r2ClassB",
  delete: null,
};
const counted = new Map<string, R2Count>();
let countingPaused = false;

/** Counts every call on the R2 binding itself (the service's objects and worker included), per tenant prefix. */
function spyOnBucket() {
  const proto = Object.getPrototypeOf(env.ATTACHMENTS) as Record<string, (...args: unknown[]) => unknown>;
  for (const [name, unit] of Object.entries(CLASS_OF)) {
    const before = Object.getOwnPropertyDescriptor(proto, name)!;
    const original = before.value as (...args: unknown[]) => unknown;
    Object.defineProperty(proto, name, {
      ...before,
      value: function spied(this: R2Bucket, ...args: unknown[]) {
        const first = args[0] as string | string[] | R2ListOptions | undefined;
        const target = name === "list" ? (first as R2ListOptions).prefix : [first as string | string[]].flat()[0];
        const tenant = String(target ?? "").split("/")[0]!;
        if (unit && !countingPaused) {
          const count = counted.get(tenant) ?? { r2ClassA: 0, r2ClassB: 0 };
          count[unit]++;
          counted.set(tenant, count);
        }
        return original.apply(this, args);
      },
    });
    onTestFinished(() => {
      Object.defineProperty(proto, name, before);
    });
  }
}

const countOf = (tenantId: string): R2Count => ({ r2ClassA: 0, r2ClassB: 0, ...counted.get(tenantId) });

/** What the tenant keeps in R2, listed by the test (not counted). */
async function keptBytes(tenantId: string): Promise<number> {
  countingPaused = true;
  try {
    let bytes = 0;
    let cursor: string | undefined;
    do {
      const page = await env.ATTACHMENTS.list({ prefix: `${tenantId}/`, ...(cursor ? { cursor } : {}) });
      for (const object of page.objects) bytes += object.size;
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor);
    return bytes;
  } finally {
    countingPaused = false;
  }
}

const today = () => new Date().toISOString().slice(0, 10);

/** The R2 figures of the operator's usage endpoint today: ops per class and in total, what is kept. */
async function billedR2(tenantId: string) {
  const res = await call(`/v1/admin/tenants/${tenantId}/usage?from=${today()}&to=${today()}`, { token: ADMIN });
  expect(res.status, res.text).toBe(200);
  const { units, r2StoredBytes, r2StorageUsd } = res.data.totals;
  const byClass: Record<string, R2Count> = {};
  for (const [objectClass, u] of Object.entries(res.data.days[0]?.objects ?? {}) as [string, R2Count][])
    if (u.r2ClassA + u.r2ClassB > 0) byClass[objectClass] = { r2ClassA: u.r2ClassA, r2ClassB: u.r2ClassB };
  return {
    ops: { r2ClassA: units.r2ClassA as number, r2ClassB: units.r2ClassB as number },
    stored: { sumOfDays: units.r2StoredBytes as number, level: r2StoredBytes as number },
    r2StorageUsd: r2StorageUsd as number,
    byClass,
  };
}

/** Waits until the test's own count has been still for 2 s (the work's tail done). */
async function quiet(tenantId: string) {
  let last = "";
  let still = 0;
  for (let i = 0; i < 100 && still < 5; i++) {
    await new Promise((r) => setTimeout(r, 400));
    const now = JSON.stringify(countOf(tenantId));
    still = now === last ? still + 1 : 0;
    last = now;
  }
}

/** The endpoint's ops once they equal the test's count (hand-offs take up to a second), and still do a moment later. */
async function billedOnceHandedOff(tenantId: string) {
  await quiet(tenantId);
  const expected = countOf(tenantId);
  await until(
    async () => (await billedR2(tenantId)).ops,
    (ops) => ops.r2ClassA === expected.r2ClassA && ops.r2ClassB === expected.r2ClassB,
  ).catch(() => undefined);
  await new Promise((r) => setTimeout(r, 1_500));
  return billedR2(tenantId);
}

async function photoTenant(label: string): Promise<TestTenant> {
  const t = await freshTenant(label);
  const put = await t.config({
    agents: {
      list: [{ id: "main", default: true, runner: { type: "openai", baseUrl: `${peer}/v1`, model: `record:${t.id}` } }],
    },
    channels: { telegram: peerTelegramChannel(SECRET) },
    session: { dmScope: "per-channel-peer" },
  });
  expect(put.status, put.text).toBe(200);
  return t;
}

/** A photo DM from a chat of its own, answered by one model call; its session key. */
async function photoDm(t: TestTenant): Promise<string> {
  const updateId = nextUpdateId++;
  const chatId = 700_000 + (updateId % 100_000);
  const fileId = `png-${crypto.randomUUID()}`;
  const sizes = [
    { file_id: `thumb-${fileId}`, file_unique_id: "s", width: 90, height: 51, file_size: 1200 },
    { file_id: fileId, file_unique_id: "l", width: 1280, height: 720, file_size: PEER_PNG.length },
  ];
  await postTelegramDm(t, SECRET, { updateId, chatId }, { photo: sizes, caption: "what is this" });
  const session = `agent:main:telegram:direct:${chatId}`;
  await until(
    async () => {
      const res = await t.call(`/sessions/${encodeURIComponent(session)}/history`);
      return res.status === 200 ? (res.data.messages as { role: string }[]) : [];
    },
    (messages) => messages.some((m) => m.role === "assistant"),
  );
  return session;
}

describe("R2 on the tenant's bill", () => {
  it("a photo DM's R2 calls and bytes, then its session's deletion, are what the endpoint bills; another tenant's figures do not move", async () => {
    spyOnBucket();
    const other = await photoTenant("r2-other");
    await photoDm(other);
    const otherBefore = await billedOnceHandedOff(other.id);
    expect(otherBefore.ops).toEqual(countOf(other.id));
    const t = await photoTenant("r2-photo");

    const session = await photoDm(t);
    const afterDm = await billedOnceHandedOff(t.id);
    const dmCount = countOf(t.id);
    console.log(`photo DM, counted by the test: ${JSON.stringify(dmCount)}; billed: ${JSON.stringify(afterDm)}`);
    // The quota's listing and the put (Class A), the download's existence check and the model's read (Class B).
    expect(dmCount).toEqual({ r2ClassA: 2, r2ClassB: 2 });
    expect(afterDm.ops).toEqual(dmCount);
    expect(await keptBytes(t.id)).toBe(PEER_PNG.length);
    expect(afterDm.stored).toEqual({ sumOfDays: PEER_PNG.length, level: PEER_PNG.length });
    expect(afterDm.r2StorageUsd).toBeGreaterThan(0);
    // The inbox fetched and stored the file; the session's run read it.
    expect(afterDm.byClass).toEqual({
      ChannelInboxObject: { r2ClassA: 2, r2ClassB: 1 },
      SessionObject: { r2ClassA: 0, r2ClassB: 1 },
    });

    const deleted = await t.call(`/v1/sessions/${encodeURIComponent(session)}`, { method: "DELETE" });
    expect(deleted.status, deleted.text).toBe(200);
    const afterDelete = await billedOnceHandedOff(t.id);
    const deleteCount = countOf(t.id);
    // The deletion listed the session's prefix (Class A) and deleted what it found (free).
    expect(deleteCount).toEqual({ r2ClassA: dmCount.r2ClassA + 1, r2ClassB: dmCount.r2ClassB });
    expect(afterDelete.ops).toEqual(deleteCount);
    expect(await keptBytes(t.id)).toBe(0);
    expect(afterDelete.stored).toEqual({ sumOfDays: 0, level: 0 });

    // The other tenant's R2 figures are its own photo DM's, before and after.
    expect(await billedR2(other.id)).toEqual(otherBefore);
    expect(otherBefore.ops).toEqual(dmCount);
  }, 90_000);

  it("a spawn's attachments, put by the worker itself (/tools/invoke), are on the tenant's bill as the Worker's", async () => {
    const t = await freshTenant("r2-spawn");
    const put = await t.config({
      gateway: { tools: { allow: ["sessions_spawn"] } },
      tools: { sessions_spawn: { attachments: { enabled: true, retainOnSessionKeep: true } } },
    });
    expect(put.status, put.text).toBe(200);
    spyOnBucket();
    const res = await t.call("/tools/invoke", {
      method: "POST",
      json: {
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
    expect(res.status, res.text).toBe(200);
    const billed = await billedOnceHandedOff(t.id);
    const count = countOf(t.id);
    // Two files and the manifest.
    expect(billed.byClass.Worker).toEqual({ r2ClassA: 3, r2ClassB: 0 });
    expect(billed.ops).toEqual(count);
    const kept = await keptBytes(t.id);
    expect(kept).toBeGreaterThan(8);
    expect(billed.stored).toEqual({ sumOfDays: kept, level: kept });
  }, 60_000);

  it("an object's R2 call under another tenant's prefix, or under none, is refused before it reaches R2", async () => {
    const t = await freshTenant("r2-fence");
    expect((await t.append("agent:main:main", { role: "user", content: "hi" })).status).toBe(201);
    // Another tenant's file, put by the test itself (the delete below must leave it).
    const foreignKey = `other-${t.id}/agent:main:main/media/kept.txt`;
    await env.ATTACHMENTS.put(foreignKey, "kept");
    onTestFinished(() => env.ATTACHMENTS.delete(foreignKey));
    spyOnBucket();
    const stub = env.SESSIONS.getByName(sessionObjectName(t.id, "agent:main:main"));
    const refused = await runInDurableObject(stub, async (object: unknown) => {
      // The env the object was constructed with (metered-object.ts gave it the object's account).
      const bucket = attachmentsOf((object as { env: Env }).env);
      const tries = [
        bucket.put(`other-${t.id}/agent:main:main/media/x.txt`, "x"),
        bucket.list({ prefix: `other-${t.id}/` }),
        bucket.get("stray.txt"),
        bucket.delete([{ key: foreignKey, size: 4 }]),
      ];
      return (await Promise.allSettled(tries)).map((r) => (r.status === "rejected" ? String(r.reason) : "done"));
    });
    expect(refused[0]).toMatch(/R2 key of tenant other-r2-fence-\w+ used by an object of tenant r2-fence-/);
    expect(refused[1]).toMatch(/R2 key of tenant other-/);
    expect(refused[2]).toMatch(/outside any tenant's prefix/);
    expect(refused[3]).toMatch(/R2 key of tenant other-/);
    // Nothing reached the bucket.
    expect(countOf(`other-${t.id}`)).toEqual({ r2ClassA: 0, r2ClassB: 0 });
    expect(countOf("stray.txt")).toEqual({ r2ClassA: 0, r2ClassB: 0 });
    // The delete was refused before R2 was called: the other tenant's file is still there.
    countingPaused = true;
    expect(await env.ATTACHMENTS.head(foreignKey)).not.toBeNull();
    countingPaused = false;
  });

  it("an object whose name the runtime does not carry (a session key past ~1 KB) is fenced to the tenant of its first R2 call", async () => {
    const t = await freshTenant("r2-unnamed");
    const longKey = `agent:main:${"x".repeat(1_100)}`;
    const stub = env.SESSIONS.getByName(sessionObjectName(t.id, longKey));
    const outcomes = await runInDurableObject(stub, async (object: unknown) => {
      const bucket = attachmentsOf((object as { env: Env }).env);
      const own = await bucket.list({ prefix: `${t.id}/` }).then(() => "done", String);
      const foreign = await bucket.list({ prefix: `other-${t.id}/` }).then(() => "done", String);
      return { own, foreign };
    });
    expect(outcomes.own).toBe("done");
    expect(outcomes.foreign).toMatch(/R2 key of tenant other-r2-unnamed-\w+ used by an object of tenant r2-unnamed-/);
  });

  it("a deleted tenant's files freed by its sessions land on no ledger: the id created again starts at 0 stored bytes", async () => {
    const t = await freshTenant("r2-gone");
    const key = "agent:main:main";
    expect((await t.append(key, { role: "user", content: "hi" })).status).toBe(201);
    await env.ATTACHMENTS.put(`${t.id}/${key}/media/note.txt`, "freed bytes");
    await until(
      () => call(`/v1/admin/tenants/${t.id}`, { method: "DELETE", token: ADMIN }),
      (res) => res.status === 200 && res.data.done === true,
      30_000,
    );
    // The session objects' hand-offs (up to UNITS_HANDOFF_MS after their deletion) are in by now.
    await new Promise((r) => setTimeout(r, 2_500));
    await createTenant(t.id);
    expect((await billedR2(t.id)).stored).toEqual({ sumOfDays: 0, level: 0 });
  }, 60_000);

  it("an export's R2 calls, made while its body streams after the response, reach the ledger in a call or two, every one billed", async () => {
    const t = await freshTenant("r2-export");
    const sessions = 30;
    for (let i = 0; i < sessions; i++)
      expect((await t.append(`agent:main:export-${i}`, { role: "user", content: "hi" })).status).toBe(201);
    spyOnBucket();
    const proto = LedgerObject.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
    const before = Object.getOwnPropertyDescriptor(proto, "recordUnits")!;
    let workerHandOffs = 0;
    Object.defineProperty(proto, "recordUnits", {
      ...before,
      value: function spied(this: { ctx: DurableObjectState }, ...args: unknown[]) {
        if (this.ctx.id.name === t.id && args[1] === "Worker") workerHandOffs++;
        return (before.value as (...a: unknown[]) => unknown).apply(this, args);
      },
    });
    onTestFinished(() => {
      Object.defineProperty(proto, "recordUnits", before);
    });
    const res = await t.call("/v1/export");
    expect(res.status, res.text).toBe(200);
    const billed = await billedOnceHandedOff(t.id);
    // A listing of each session's prefix, by the worker as it writes the body.
    expect(countOf(t.id).r2ClassA).toBe(sessions);
    expect(billed.byClass.Worker).toEqual({ r2ClassA: sessions, r2ClassB: 0 });
    expect(workerHandOffs).toBeGreaterThan(0);
    expect(workerHandOffs).toBeLessThanOrEqual(3);
  }, 60_000);
});
