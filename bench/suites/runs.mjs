// Runs suite: a full agent turn with the built-in echo runner over the gateway (chat.send →
// chat final), sequential and with 100 sessions in parallel.
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { closeAll, GatewayConn, GatewayError, gatewayUrl, messageText, openMany } from "../lib/gateway.mjs";
import { summarize } from "../lib/measure.mjs";

export const description = "runs: chat.send → chat final with the echo runner, sequential and 100 sessions in parallel";

const TURN_TIMEOUT_MS = 30_000;
const PARALLEL_CONNECTIONS = 4;

/**
 * Routes `chat` events of one connection to the turns waiting for them (by runId). chat events
 * are broadcast to every connection of the tenant, so other connections' runs are ignored.
 */
export class Turns {
  constructor(conn) {
    this.conn = conn;
    this.waiting = new Map(); // runId → { resolve, reject, timer }
    conn.onEvent((frame) => {
      if (frame.event !== "chat") return;
      const waiter = this.waiting.get(frame.payload?.runId);
      if (!waiter) return;
      const state = frame.payload.state;
      // Only final, error and aborted end a run; deltas and status frames come before.
      if (state !== "final" && state !== "error" && state !== "aborted") return;
      this.waiting.delete(frame.payload.runId);
      clearTimeout(waiter.timer);
      if (state === "final") waiter.resolve({ payload: frame.payload, at: performance.now() });
      else
        waiter.reject(
          new GatewayError(`run ended ${state}: ${frame.payload.errorMessage ?? ""}`.trim(), `chat ${state}`),
        );
    });
  }

  /**
   * One turn; resolves { ackMs, finalMs, finalFirst } (arrival times from sending chat.send;
   * finalFirst: the chat final arrived before the chat.send response). Throws on any failure.
   */
  async turn(sessionKey, label) {
    const runId = randomUUID();
    const message = `${label} ${runId}`;
    const final = new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(runId);
        reject(new GatewayError(`no chat final within ${TURN_TIMEOUT_MS} ms`, "timeout"));
      }, TURN_TIMEOUT_MS);
      this.waiting.set(runId, { resolve, reject, timer });
    });
    final.catch(() => {}); // observed below; avoid an unhandled rejection while awaiting the ack
    const t0 = performance.now();
    let ackMs;
    try {
      const res = await this.conn.request("chat.send", { sessionKey, message, idempotencyKey: runId }, TURN_TIMEOUT_MS);
      ackMs = performance.now() - t0;
      if (!res.ok) throw new GatewayError(`chat.send refused: ${JSON.stringify(res.error).slice(0, 200)}`, "refused");
      if (res.payload?.runId !== runId || res.payload?.status !== "started") {
        throw new GatewayError(`chat.send answered ${JSON.stringify(res.payload).slice(0, 200)}`, "unexpected ack");
      }
    } catch (error) {
      const waiter = this.waiting.get(runId);
      if (waiter) {
        clearTimeout(waiter.timer);
        this.waiting.delete(runId);
      }
      throw error;
    }
    const { payload, at } = await final;
    const finalMs = at - t0;
    const reply = messageText(payload.message);
    if (reply !== `ECHO: ${message}`)
      throw new GatewayError(
        `chat final carried ${JSON.stringify(reply).slice(0, 120)}, expected the echo`,
        "wrong reply",
      );
    if (payload.sessionKey !== undefined && payload.sessionKey !== sessionKey) {
      throw new GatewayError(`chat final for ${payload.sessionKey}, expected ${sessionKey}`, "wrong session");
    }
    return { ackMs, finalMs, finalFirst: finalMs < ackMs };
  }
}

export async function run(ctx) {
  const { log, signal } = ctx;
  const quick = ctx.quick;
  const n = (count) => Math.max(1, Math.round(count * (quick ? 0.1 : 1)));
  const url = gatewayUrl(ctx.baseUrl);
  const rows = [];
  const conns = [];
  try {
    const main = await GatewayConn.open(url, { signal });
    conns.push(main);
    const turns = new Turns(main);

    // 1. Sequential turns, each in a fresh session agent:main:turn-N (creates the session).
    const fresh = await sequential(
      ctx,
      n(200),
      (i) => turns.turn(`agent:main:turn-${i}`, `turn ${i}`),
      5,
      (i) => turns.turn(`agent:main:turn-warm-${i}`, "warm"),
    );
    pushTurnRows(
      rows,
      log,
      "turn, new session each",
      fresh,
      `OpenClaw: 380–660 ms; target < 20 ms ${fresh.final.p50 < 20 ? "met" : "MISSED"}`,
    );

    // 2. Sequential turns in one session that keeps growing (OpenClaw's measurement shape).
    const same = await sequential(ctx, n(100), (i) => turns.turn("agent:main:turn-same", `same ${i}`), 0);
    pushTurnRows(
      rows,
      log,
      "turn, one session",
      same,
      `OpenClaw bench-chat: 380–658 ms; target < 20 ms ${same.final.p50 < 20 ? "met" : "MISSED"}`,
    );

    // 3. 100 sessions in parallel, each doing sequential turns, over a few connections.
    const sessions = quick ? 20 : 100;
    const perSession = quick ? 5 : 10;
    const opened = await openMany(url, { count: PARALLEL_CONNECTIONS, concurrency: PARALLEL_CONNECTIONS, signal });
    conns.push(...opened.conns);
    if (opened.errors) throw new Error(`could not open ${PARALLEL_CONNECTIONS} connections: ${opened.errorSamples[0]}`);
    const drivers = opened.conns.map((c) => new Turns(c));
    log(`parallel: ${sessions} sessions × ${perSession} turns over ${drivers.length} connections`);
    const latencies = [];
    const errorKinds = {};
    const errorSamples = [];
    let failed = 0;
    let notStarted = 0;
    const t0 = performance.now();
    const deadline = t0 + 120_000;
    await Promise.all(
      Array.from({ length: sessions }, async (_, s) => {
        const driver = drivers[s % drivers.length];
        for (let i = 0; i < perSession; i++) {
          if (signal?.aborted || performance.now() > deadline) {
            notStarted += perSession - i;
            return;
          }
          try {
            const { finalMs } = await driver.turn(`agent:main:par-${s}`, `par ${s}.${i}`);
            latencies.push(finalMs);
          } catch (error) {
            failed++;
            errorKinds[error.kind ?? "error"] = (errorKinds[error.kind ?? "error"] ?? 0) + 1;
            if (errorSamples.length < 5) errorSamples.push(error.message);
          }
        }
      }),
    );
    signal?.throwIfAborted();
    const seconds = (performance.now() - t0) / 1000;
    const stats = summarize(latencies);
    if (failed || notStarted) {
      log(`!! parallel: ${failed} failed turns ${JSON.stringify(errorKinds)}, ${notStarted} not started (time limit)`);
      for (const s of errorSamples) log(`   e.g. ${s}`);
    }
    const total = sessions * perSession;
    rows.push({
      name: `parallel turns (${sessions} sessions)`,
      value: latencies.length / seconds,
      unit: "turns/s",
      note: `${latencies.length}/${total} ok in ${seconds.toFixed(1)} s, ${perSession} sequential turns per session, ${drivers.length} connections`,
      errors: failed + notStarted,
    });
    rows.push({ name: "parallel turn p50", value: stats.p50, unit: "ms", note: "chat.send → chat final" });
    rows.push({ name: "parallel turn p99", value: stats.p99, unit: "ms", note: `max ${stats.max.toFixed(1)} ms` });
    rows.push({
      name: "parallel failed turns",
      value: failed + notStarted,
      unit: "turns",
      note: failed + notStarted ? JSON.stringify({ ...errorKinds, ...(notStarted ? { notStarted } : {}) }) : "",
      errors: failed + notStarted,
    });
    const badFrames = conns.reduce((sum, c) => sum + c.badFrames, 0);
    if (badFrames) rows.push({ name: "unparseable frames", value: badFrames, unit: "frames", errors: badFrames });
  } finally {
    const unclean = await closeAll(conns);
    if (unclean) log(`!! ${unclean} connections did not close cleanly`);
  }
  return rows;
}

/** `warmups` untimed turns, then `reps` timed sequential turns; failures counted, never retried. */
async function sequential({ signal, log }, reps, turn, warmups, warmTurn = turn) {
  const acks = [];
  const finals = [];
  const errorSamples = [];
  let errors = 0;
  const deadline = performance.now() + 90_000;
  for (let i = 0; i < warmups; i++) {
    try {
      await warmTurn(i);
    } catch (error) {
      log(`!! warm-up turn: ${error.message}`);
    }
  }
  let done = 0;
  let finalFirst = 0;
  for (let i = 0; i < reps; i++) {
    signal?.throwIfAborted();
    if (performance.now() > deadline) {
      errors += reps - i;
      errorSamples.push(`time limit: ${reps - i} turns not run`);
      break;
    }
    try {
      const { ackMs, finalMs, finalFirst: first } = await turn(i);
      acks.push(ackMs);
      finals.push(finalMs);
      if (first) finalFirst++;
    } catch (error) {
      errors++;
      if (errorSamples.length < 5) errorSamples.push(error.message);
    }
    done++;
  }
  return { ack: summarize(acks), final: summarize(finals), errors, errorSamples, done, finalFirst };
}

function pushTurnRows(rows, log, name, result, note) {
  if (result.errors) for (const s of result.errorSamples) log(`!! ${name}: ${s}`);
  rows.push({
    name: `${name} p50`,
    value: result.final.p50,
    unit: "ms",
    note: `n=${result.final.n} sequential, chat.send → chat final; ack p50 ${result.ack.p50.toFixed(1)} ms; ${note}`,
    errors: result.errors,
  });
  rows.push({
    name: `${name} p99`,
    value: result.final.p99,
    unit: "ms",
    note: `max ${result.final.max.toFixed(1)} ms; ack p99 ${result.ack.p99.toFixed(1)} ms; chat final arrived before the ack in ${result.finalFirst}/${result.final.n} turns`,
  });
}
