// Cost suite: the billable units each workload causes, as the service's own meter counts them
// (src/metering/: every tenant object's requests, WebSocket messages, active time and SQLite
// rows, and every R2 call's Class A / Class B operation and bytes, handed to the tenant's ledger), read back through GET /v1/admin/tenants/<id>/usage,
// then dollars at Cloudflare's published prices (src/ledger/cloudflare-prices.ts) and a
// tenant-month at three activity levels beside a container per tenant.
// Each workload runs in a tenant of its own, so its units are its own. The tool-loop and spawn
// workloads run on the scripted tool-calling mock model (test/peers/tool-mock-model.mjs).
import { randomUUID } from "node:crypto";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { startToolMockModel } from "../../test/peers/tool-mock-model.mjs";
import { benchTenant } from "../lib/bench-tenant.mjs";
import { startFakeApi } from "../lib/channel-peers.mjs";
import { closeAll, GatewayConn, gatewayUrl, messageText } from "../lib/gateway.mjs";
import { workerdCpuMs } from "../lib/process-cpu.mjs";
import { statementRows, statementRowsPerOp } from "../lib/statement-rows.mjs";
import { UNIT_KEYS, unitsByClass, unitsPerOp } from "../lib/usage-delta.mjs";
import { Turns } from "./runs.mjs";

export const description =
  "cost: billable units per workload (object requests, active ms, SQLite rows) from the service's meter, $ per 1,000, a tenant-month";

/** Cloudflare's published prices (the same figures as src/ledger/cloudflare-prices.ts, read 2026-11-28). */
const PRICE = {
  objectRequestsPerMillion: 0.15,
  gbSecondsPerMillion: 12.5,
  rowsReadPerMillion: 0.001,
  rowsWrittenPerMillion: 1.0,
  workerRequestsPerMillion: 0.3,
  // R2 (developers.cloudflare.com/r2/pricing, read 2026-11-29): put/list, get/head; deletes free.
  r2ClassAPerMillion: 4.5,
  r2ClassBPerMillion: 0.36,
};
const OBJECT_GB = 0.128;
/**
 * A container per tenant, as OpenClaw's own multi-tenant answer runs it (one gateway, ~1 GiB,
 * always on), at Cloudflare Containers' published memory price ($0.0000025 per GiB-second,
 * developers.cloudflare.com/containers/pricing, read 2026-11-28), memory only (CPU and disk extra).
 */
const CONTAINER_GIB = 1;
const CONTAINER_USD_PER_GIB_SECOND = 0.0000025;
const SECONDS_PER_MONTH = 30 * 24 * 3600;
/** How long a snapshot waits after the work (objects hand off their units when idle, within milliseconds). */
const SETTLE_MS = 2000;

const BOT_TOKEN = "123456789:TEST-fake-telegram-token";
const TG_SECRET = "tg-webhook-secret-0123456789";
const DM_USER = 424242;
let nextUpdateId = Date.now() % 1_000_000_000;

/** How long a tool-loop turn, a spawn's round trip or a cron run may take before the bench fails. */
const RUN_TIMEOUT_MS = 30_000;
/** Sockets subscribed to the session's messages in the chat.inject workload. */
const FOLLOWERS = 10;

function dollars(units, workerRequests = 0) {
  const requests = units.requests + units.websocketMessages / 20;
  return (
    (requests * PRICE.objectRequestsPerMillion +
      (units.activeMs / 1000) * OBJECT_GB * PRICE.gbSecondsPerMillion +
      units.rowsRead * PRICE.rowsReadPerMillion +
      units.rowsWritten * PRICE.rowsWrittenPerMillion +
      units.r2ClassA * PRICE.r2ClassAPerMillion +
      units.r2ClassB * PRICE.r2ClassBPerMillion +
      workerRequests * PRICE.workerRequestsPerMillion) /
    1e6
  );
}

/**
 * The tenant's units per object class today, read after SETTLE_MS without work (objects hand
 * their units to the ledger as soon as they are idle). A read has a cost of its own (the tenant
 * object, the ledger): measure() takes it out.
 */
async function settledUnits(admin, tenantId, signal) {
  await sleep(SETTLE_MS, undefined, { signal });
  return unitsByClass(JSON.parse((await admin.get(`/v1/admin/tenants/${tenantId}/usage`)).text));
}

function sum(byClass) {
  const total = Object.fromEntries(UNIT_KEYS.map((k) => [k, 0]));
  for (const units of Object.values(byClass)) for (const k of UNIT_KEYS) total[k] += units[k];
  return total;
}

/**
 * Runs `op` `n` times in a fresh tenant (after `setup`), and returns the units per op, with the
 * overhead of reading the usage itself (measured once per tenant) taken out; null for a workload
 * BENCH_COST_ONLY leaves out.
 */
async function measure(ctx, name, { setup, op, n, workerRequestsPerOp }) {
  if (!wanted(name)) return null;
  const id = `cost-${name.replace(/[^a-z0-9]+/gi, "-").toLowerCase()}-${randomUUID().slice(0, 6)}`;
  const tenant = await benchTenant(ctx.baseUrl, ctx.signal, id);
  const state = setup ? await setup(tenant, id) : {};
  // --by-statement: the objects' rows per statement, marked beside each snapshot.
  const tally = ctx.byStatement && ctx.server ? statementRows(ctx.server) : null;
  const first = await settledUnits(tenant.admin, id, ctx.signal);
  const firstMark = tally?.mark();
  const second = await settledUnits(tenant.admin, id, ctx.signal);
  const secondMark = tally?.mark();
  const cpuBefore = workerdCpuMs(ctx.server?.pid);
  for (let i = 0; i < n; i++) await op(tenant, state, i);
  // The work's tail (hand-offs, a retry alarm) inside the CPU window, the usage read outside it.
  await sleep(SETTLE_MS, undefined, { signal: ctx.signal });
  const cpuAfter = workerdCpuMs(ctx.server?.pid);
  const after = await settledUnits(tenant.admin, id, ctx.signal);
  // The snapshots' own cost (a usage read: the tenant object, the ledger) taken out.
  const perOp = unitsPerOp(first, second, after, n);
  const byStatement = tally ? statementRowsPerOp(firstMark, secondMark, tally.mark(), n) : null;
  tally?.stop();
  await state.close?.();
  const cpuMsPerOp = cpuBefore === null || cpuAfter === null ? null : (cpuAfter - cpuBefore) / n;
  return { name, perOp, total: sum(perOp), workerRequestsPerOp, cpuMsPerOp, byStatement };
}

/** --by-statement: a row per statement that wrote, rows written per op (its calls and rows read in the note). */
function statementRowsOf({ name, byStatement }) {
  return (byStatement ?? [])
    .filter((s) => s.rowsWritten >= 0.05)
    .map((s) => ({
      name: `${name} · ${s.objectClass.replace("Object", "")} · ${s.statement.slice(0, 110)}`,
      value: s.rowsWritten,
      unit: "rows written/op",
      note: `${s.calls.toFixed(2)} calls/op, ${s.rowsRead.toFixed(1)} rows read/op`,
    }));
}

function rowsOf(result) {
  const { name, perOp, total, workerRequestsPerOp, cpuMsPerOp } = result;
  const byClass = Object.entries(perOp)
    .filter(([, u]) => u.requests + u.rowsWritten + u.rowsRead > 0)
    .map(
      ([cls, u]) =>
        `${cls.replace("Object", "")} ${u.requests.toFixed(1)} req/${u.rowsWritten.toFixed(1)} w/${u.rowsRead.toFixed(1)} r`,
    )
    .join("; ");
  return [
    {
      name: `${name}: object requests`,
      value: total.requests + total.websocketMessages / 20,
      unit: "per op",
      note: byClass,
    },
    {
      name: `${name}: rows written`,
      value: total.rowsWritten,
      unit: "per op",
      note: `rows read ${total.rowsRead.toFixed(1)}`,
    },
    {
      name: `${name}: stored bytes`,
      value: total.storedBytes,
      unit: "bytes/op",
      note: "growth of the objects' SQLite databases (databaseSize, whole 4 KiB pages)",
    },
    ...(total.r2ClassA + total.r2ClassB === 0
      ? []
      : [
          {
            name: `${name}: R2 operations`,
            value: total.r2ClassA + total.r2ClassB,
            unit: "per op",
            note: `${total.r2ClassA.toFixed(1)} Class A, ${total.r2ClassB.toFixed(1)} Class B; ${total.r2StoredBytes.toFixed(0)} bytes kept in R2 per op (metered: src/metering/metered-bucket.ts)`,
          },
        ]),
    {
      name: `${name}: active time`,
      value: total.activeMs,
      unit: "ms/op",
      note: "object wall time while active (GB-s at 128 MB)",
    },
    ...(cpuMsPerOp === null
      ? []
      : [
          {
            name: `${name}: workerd CPU`,
            value: cpuMsPerOp,
            unit: "ms/op",
            note: "user+system time of the workerd processes (the Worker, every object, the runtime; 2 s of idle tail included): an upper bound on billed Worker CPU",
          },
        ]),
    {
      name: `${name}: $ per 1,000`,
      value: dollars(total, workerRequestsPerOp) * 1000,
      unit: "USD",
      note: `incl. ${workerRequestsPerOp} Worker request(s) per op`,
    },
    ...statementRowsOf(result),
  ];
}

/**
 * Resolves with the chat event that ends a run in a session (`session`: its key, or a test of the
 * key), `runId`'s or any but `exceptRunId`; rejects when that run ended in error or aborted.
 */
async function runEnd(conn, session, { runId, exceptRunId } = {}) {
  const sessionMatches = typeof session === "function" ? session : (key) => key === session;
  const frame = await conn.waitForEvent(
    (f) =>
      f.event === "chat" &&
      sessionMatches(f.payload?.sessionKey) &&
      (runId === undefined || f.payload.runId === runId) &&
      (exceptRunId === undefined || f.payload.runId !== exceptRunId) &&
      ["final", "error", "aborted"].includes(f.payload.state),
    RUN_TIMEOUT_MS,
  );
  if (frame.payload.state !== "final")
    throw new Error(`run in ${frame.payload.sessionKey} ended ${frame.payload.state}`);
  return frame.payload;
}

/** One chat.send turn whose run ends in `sessionKey`; resolves with the run's final chat payload. */
async function sendTurn(conn, sessionKey, message, runId = randomUUID()) {
  const end = runEnd(conn, sessionKey, { runId });
  end.catch(() => {}); // observed below
  const res = await conn.request("chat.send", { sessionKey, message, idempotencyKey: runId }, RUN_TIMEOUT_MS);
  if (!res.ok) throw new Error(`chat.send refused: ${JSON.stringify(res.error).slice(0, 200)}`);
  return { runId, final: await end };
}

/** The tenant's agents on the scripted tool-calling mock model (test/peers/tool-mock-model.mjs). */
async function useToolModel(tenant, mock) {
  await tenant.client.request("PUT", "/v1/config", {
    body: {
      agents: {
        defaults: { subagents: { maxSpawnDepth: 2 } },
        list: [{ id: "main", default: true, runner: { type: "openai", baseUrl: mock.url, model: "mock" } }],
      },
    },
  });
}

/**
 * BENCH_COST_ONLY=<word>[,<word>…]: only the workloads whose name contains one of the words
 * (e.g. `telegram,existing`); the tenant-month rows need the echo turn and the idle tenant.
 */
const ONLY = (process.env.BENCH_COST_ONLY ?? "")
  .split(",")
  .map((w) => w.trim().toLowerCase())
  .filter(Boolean);
const wanted = (name) => ONLY.length === 0 || ONLY.some((w) => name.toLowerCase().includes(w));

export async function run(ctx) {
  const { log, signal } = ctx;
  const n = ctx.quick ? 5 : 30;
  const results = [];
  const tenantGateway = (id, token) => GatewayConn.open(`${gatewayUrl(ctx.baseUrl)}t/${id}`, { signal, token });

  log(`echo turn in an existing session ×${n}`);
  results.push(
    await measure(ctx, "echo turn, existing session", {
      n,
      workerRequestsPerOp: 0,
      setup: async (tenant, id) => {
        const conn = await tenantGateway(id, tenant.token);
        const turns = new Turns(conn);
        await turns.turn("agent:main:cost", "warm");
        return { turns, close: () => closeAll([conn]) };
      },
      op: (_t, state, i) => state.turns.turn("agent:main:cost", `turn ${i}`),
    }),
  );
  log(`turn in a new session ×${n}`);
  results.push(
    await measure(ctx, "echo turn, new session", {
      n,
      workerRequestsPerOp: 0,
      setup: async (tenant, id) => {
        const conn = await tenantGateway(id, tenant.token);
        return { turns: new Turns(conn), close: () => closeAll([conn]) };
      },
      op: (_t, state, i) => state.turns.turn(`agent:main:cost-new-${i}`, `new ${i}`),
    }),
  );
  log(`history page ×${n}`);
  results.push(
    await measure(ctx, "history page (50 messages)", {
      n,
      workerRequestsPerOp: 1,
      setup: async (tenant, id) => {
        const conn = await tenantGateway(id, tenant.token);
        const turns = new Turns(conn);
        for (let i = 0; i < 25; i++) await turns.turn("agent:main:hist", `h ${i}`);
        await closeAll([conn]);
        return {};
      },
      op: (tenant) => tenant.client.get(`/sessions/${encodeURIComponent("agent:main:hist")}/history?limit=50`),
    }),
  );
  log(`sessions.list of 50 ×${n}`);
  results.push(
    await measure(ctx, "sessions.list of 50", {
      n,
      workerRequestsPerOp: 1,
      setup: async (tenant) => {
        for (let i = 0; i < 50; i++)
          await tenant.client.request("PATCH", `/v1/sessions/${encodeURIComponent(`agent:main:l-${i}`)}`, {
            body: { label: `l ${i}` },
          });
        return {};
      },
      op: (tenant) => tenant.client.get("/v1/sessions?limit=50"),
    }),
  );
  log(`Telegram DM → reply ×${n}, then a photo DM → reply ×${n} (fake Bot API, echo runner)`);
  const tg = await startFakeApi(join(dirname(fileURLToPath(import.meta.url)), "../../test/peers/fake-telegram.mjs"), {
    env: { TG_TOKEN: BOT_TOKEN },
    label: "fake Telegram",
  });
  try {
    results.push(
      await measure(ctx, "Telegram DM to reply", {
        n,
        workerRequestsPerOp: 1,
        setup: telegramDmSetup(ctx, tg),
        op: (_t, state, i) => state.dm(`dm ${i} ${randomUUID().slice(0, 6)}`),
      }),
    );
    // A photo (the fake's 1×1 PNG): downloaded into R2 before the turn (the inbox's quota listing,
    // an existence check, the put); the echo runner reads no image (a model that takes images
    // reads it once per call: one Class B more, test/workerd/usage/r2-usage.test.ts).
    results.push(
      await measure(ctx, "Telegram photo DM to reply", {
        n,
        workerRequestsPerOp: 1,
        setup: telegramDmSetup(ctx, tg),
        op: (_t, state, i) => state.dm(`photo ${i} ${randomUUID().slice(0, 6)}`, { photo: true }),
      }),
    );
  } finally {
    await tg.stop();
  }
  const slow = ctx.quick ? 3 : 10;
  const mock = await startToolMockModel();
  // The tenant's agents on the tool-calling mock, one socket, a first turn in `sessionKey`.
  const onToolModel = (sessionKey) => async (tenant, id) => {
    await useToolModel(tenant, mock);
    const conn = await tenantGateway(id, tenant.token);
    await sendTurn(conn, sessionKey, "warm");
    return { conn, close: () => closeAll([conn]) };
  };
  try {
    log(`tool-loop turn, two tool calls ×${slow} (scripted mock model)`);
    results.push(
      await measure(ctx, "tool-loop turn, two tool calls", {
        n: slow,
        workerRequestsPerOp: 0,
        setup: onToolModel("agent:main:loop"),
        // Two rounds, one call each (three model calls), in a session that keeps growing.
        op: async (_t, state, i) => {
          const { final } = await sendTurn(
            state.conn,
            "agent:main:loop",
            `CALL sessions_list {"limit":1} THEN CALL session_status {} FINAL(loop ${i} done)`,
          );
          if (messageText(final.message) !== `loop ${i} done`) throw new Error("the tool loop did not finish");
        },
      }),
    );
    log(`spawn to its announce ×${slow} (scripted mock model)`);
    results.push(
      await measure(ctx, "spawn to its announce", {
        n: slow,
        workerRequestsPerOp: 0,
        setup: onToolModel("agent:main:parent"),
        // The parent's run (sessions_spawn, then its final), the child's run, the announce's run in the parent.
        op: async (_t, state, i) => {
          const runId = randomUUID();
          // Listening before the send: the announce may end right behind the parent's own run.
          const announced = runEnd(state.conn, "agent:main:parent", { exceptRunId: runId });
          announced.catch(() => {});
          await sendTurn(state.conn, "agent:main:parent", `CALL sessions_spawn {"task":"child task ${i}"}`, runId);
          await announced;
        },
      }),
    );
  } finally {
    await mock.close();
  }
  log(`chat.inject with ${FOLLOWERS} followers ×${n}`);
  results.push(
    await measure(ctx, `chat.inject, ${FOLLOWERS} followers`, {
      n,
      workerRequestsPerOp: 0,
      setup: async (tenant, id) => {
        const key = "agent:main:followed";
        const sender = await tenantGateway(id, tenant.token);
        await sender.call("chat.inject", { sessionKey: key, message: "first" });
        const followers = [];
        for (let i = 0; i < FOLLOWERS; i++) {
          const conn = await tenantGateway(id, tenant.token);
          followers.push(conn);
          const sub = await conn.request("sessions.messages.subscribe", { key });
          if (!sub.ok) throw new Error(`subscribe failed: ${JSON.stringify(sub.error)}`);
        }
        return { key, sender, followers, close: () => closeAll([sender, ...followers]) };
      },
      op: async (_t, state, i) => {
        const text = `inject ${i} ${randomUUID()}`;
        const delivered = Promise.all(
          state.followers.map((conn) =>
            conn.waitForEvent((f) => f.event === "session.message" && messageText(f.payload?.message) === text),
          ),
        );
        delivered.catch(() => {});
        await state.sender.call("chat.inject", { sessionKey: state.key, message: text });
        await delivered;
      },
    }),
  );
  log(`cron run ×${slow} (an at job due now, echo runner)`);
  results.push(
    await measure(ctx, "cron run (job due now)", {
      n: slow,
      workerRequestsPerOp: 0,
      setup: async (tenant, id) => {
        const conn = await tenantGateway(id, tenant.token);
        return { conn, close: () => closeAll([conn]) };
      },
      // cron.add of a one-shot due at once; the scheduler's alarm runs it in agent:main:cron:<jobId>.
      op: async (_t, state, i) => {
        const ran = runEnd(state.conn, (key) => key?.startsWith("agent:main:cron:"));
        ran.catch(() => {});
        const job = await state.conn.call("cron.add", {
          name: `cost ${i}`,
          agentId: "main",
          sessionTarget: "isolated",
          wakeMode: "now",
          delivery: { mode: "none" },
          schedule: { kind: "at", at: new Date().toISOString() },
          payload: { kind: "agentTurn", message: `cron ${i}` },
        });
        const final = await ran;
        if (final.sessionKey !== `agent:main:cron:${job.id}`)
          throw new Error(`ran ${final.sessionKey}, not job ${job.id}`);
      },
    }),
  );
  const idleSeconds = ctx.quick ? 15 : 60;
  log(`idle tenant with a connected Control UI socket for ${idleSeconds} s`);
  const idle = await measure(ctx, "idle tenant, one socket", {
    n: 1,
    workerRequestsPerOp: 0,
    setup: async (tenant, id) => {
      const conn = await tenantGateway(id, tenant.token);
      return { conn, close: () => closeAll([conn]) };
    },
    op: () => sleep(idleSeconds * 1000, undefined, { signal }),
  });
  results.push(idle);

  const rows = results.filter(Boolean).flatMap(rowsOf);
  // A tenant-month: messages × (a turn + its Worker request), plus a day of an idle socket × 30;
  // a channel tenant's: Telegram DMs × (a DM to its reply + its webhook's Worker request).
  const turn = results[0];
  const telegram = results.find((r) => r?.name === "Telegram DM to reply");
  if (telegram)
    for (const messages of [100, 10_000, 1_000_000])
      rows.push({
        name: `tenant-month, ${messages.toLocaleString("en")} Telegram DMs`,
        value: messages * dollars(telegram.total, telegram.workerRequestsPerOp),
        unit: "USD",
        note: `${messages.toLocaleString("en")} × a Telegram DM to its reply (webhook Worker request included)`,
      });
  if (!turn || !idle) return rows;
  const perMessage = dollars(turn.total, 1);
  const idleDay = dollars(idle.total) * ((24 * 3600) / idleSeconds);
  for (const messages of [100, 10_000, 1_000_000]) {
    rows.push({
      name: `tenant-month, ${messages.toLocaleString("en")} messages`,
      value: messages * perMessage + 30 * idleDay,
      unit: "USD",
      note: `${messages.toLocaleString("en")} × echo turn + 30 days of an idle Control UI socket ($${(30 * idleDay).toFixed(4)}); Workers' $5 plan allowance not subtracted`,
    });
  }
  rows.push({
    name: "container per tenant, a month",
    value: CONTAINER_GIB * SECONDS_PER_MONTH * CONTAINER_USD_PER_GIB_SECOND,
    unit: "USD",
    note: `${CONTAINER_GIB} GiB always on at $${CONTAINER_USD_PER_GIB_SECOND}/GiB-s (Cloudflare Containers, memory only)`,
  });
  return rows;
}

/**
 * A tenant whose Telegram bot is the fake's, and `dm(text, { photo })`: a DM from one user
 * (`text` as the photo's caption with `photo`), resolved when the fake got the echo reply.
 */
function telegramDmSetup(ctx, tg) {
  return async (tenant, id) => {
    await tenant.client.request("PUT", "/v1/config", {
      body: {
        session: { dmScope: "main" },
        channels: {
          telegram: {
            enabled: true,
            botToken: BOT_TOKEN,
            apiRoot: tg.url,
            webhookSecret: TG_SECRET,
            dmPolicy: "open",
            allowFrom: ["*"],
          },
        },
      },
    });
    const dm = async (text, { photo = false } = {}) => {
      const updateId = nextUpdateId++;
      const fileId = `bench-${updateId}`;
      const content = photo
        ? { caption: text, photo: [{ file_id: fileId, file_unique_id: fileId, width: 1, height: 1, file_size: 68 }] }
        : { text };
      const res = await fetch(`${ctx.baseUrl}/t/${id}/telegram-webhook`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": TG_SECRET },
        body: JSON.stringify({
          update_id: updateId,
          message: {
            message_id: updateId % 1_000_000,
            from: { id: DM_USER, is_bot: false, first_name: "Bench", username: "bench" },
            chat: { id: DM_USER, type: "private", first_name: "Bench" },
            date: Math.floor(Date.now() / 1000),
            ...content,
          },
        }),
      });
      if (res.status !== 200) throw new Error(`webhook answered ${res.status}`);
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline) {
        const calls = await tg.calls();
        if (calls.some((c) => c.method === "sendMessage" && String(c.body?.text).includes(text))) return;
        await sleep(50, undefined, { signal: ctx.signal });
      }
      throw new Error(`no reply to "${text}" within 30 s`);
    };
    await dm(`warm ${id}`);
    return { dm };
  };
}
