// The hub split as built (src/gateway/hub-object.ts): one tenant, K subscribers following one
// session, spread over the tenant object and hub objects by GATEWAY_HUB_SOCKETS (1 hub: all in
// the tenant object, as before the split). Events are real `chat.inject`s from a driver socket
// (its own object's events are counted with the rest: every reader also gets the `chat` final).
//
// Per configuration: the fan-out to the last subscriber (one inject at a time: answer and every
// subscriber's session.message), injects/s at full speed (WINDOW in flight), frames/s, workerd CPU
// per event. Every subscriber checks its seq has no gap and every event reaches all K.
//
// Each configuration starts its own service in workerd directly (the bundle built once) with its
// GATEWAY_HUB_SOCKETS. Locally every object of one workerd shares one JavaScript thread, so more
// hubs cannot add throughput here (they add the tenant → hub hop); on Cloudflare each object has
// its own thread. `npm run bench -- hubsplit` simulates that (one workerd per hub); this suite
// measures the real code: what the hop costs and that nothing is lost.
//
// The small-tenant row: 100 subscribers in the tenant object alone vs 50 there and 50 in a hub.
// 20,000 subscribers are not measured on this machine: a process may hold 20,000 descriptors and
// the limit cannot be raised here; the workerd behind `--direct` holds about two per socket and
// resets connections past ≈10,000 (15,000 failed so), hence 9,000 as the largest K.
import { randomUUID } from "node:crypto";
import { rm } from "node:fs/promises";
import os from "node:os";
import { performance } from "node:perf_hooks";
import { closeAll, GatewayConn, gatewayUrl, openMany } from "../lib/gateway.mjs";
import { fmt, fullSpeed, summarize } from "../lib/measure.mjs";
import { cpuSeconds, fdLimit, openFds, workerdPids } from "../lib/procs.mjs";
import { bundleWorker, startServer } from "../lib/server.mjs";

export const description =
  "hubs: fan-out to K subscribers over 1 / 2 / 4 gateway objects (the real hub split), and the hop for a small tenant";

const WINDOW = 8;
const DELIVERY_TIMEOUT_MS = 30_000;
const SCOPES = ["operator.read", "operator.write", "operator.admin"];

const HEAD_MESSAGE = Buffer.from('{"type":"event","event":"session.message","payload":{"sessionKey":"');
const MESSAGE_SEQ = Buffer.from('"messageSeq":');
const SEQ = Buffer.from('"seq":');

/** The frame's own seq (its last field), read from the bytes; -1 when it has none. */
function frameSeq(data) {
  if (data[data.length - 1] !== 125) return -1;
  let seq = 0;
  let scale = 1;
  let j = data.length - 2;
  for (; data[j] >= 48 && data[j] <= 57; j--, scale *= 10) seq += (data[j] - 48) * scale;
  if (j === data.length - 2 || data.compare(SEQ, 0, SEQ.length, j + 1 - SEQ.length, j + 1) !== 0) return -1;
  return seq;
}

/** A session.message frame's messageSeq; -1 for any other frame. */
function messageSeq(data) {
  if (
    data.length < HEAD_MESSAGE.length ||
    data.compare(HEAD_MESSAGE, 0, HEAD_MESSAGE.length, 0, HEAD_MESSAGE.length) !== 0
  )
    return -1;
  let i = data.indexOf(MESSAGE_SEQ, HEAD_MESSAGE.length);
  if (i < 0) return -1;
  i += MESSAGE_SEQ.length;
  let n = 0;
  for (; data[i] >= 48 && data[i] <= 57; i++) n = n * 10 + data[i] - 48;
  return n;
}

export async function run(ctx) {
  const { log, signal, quick } = ctx;
  const cwd = ctx.repoRoot ?? process.cwd();
  const ks = quick ? [300, 1000] : [1000, 5000, 9000];
  const hubCounts = [1, 2, 4];
  const latencyEvents = quick ? 10 : 25;
  const seconds = quick ? 2 : 5;
  const room = (await fdLimit()).soft - (await openFds()) - 256;
  const feasible = ks.filter((k) => k <= room);
  if (feasible.length < ks.length)
    log(`fd limit leaves room for ${room} sockets: ${ks.filter((k) => k > room)} left out`);
  const built = await bundleWorker({ cwd, log });
  const rows = [];
  const table = [];
  try {
    const measureOne = async (k, hubs, capacity) => {
      const server = await startServer({
        cwd,
        runtime: "direct",
        bundle: built.script,
        vars: { GATEWAY_HUB_SOCKETS: String(capacity) },
        log,
      });
      try {
        const figures = await measure({ server, k, hubs, capacity, latencyEvents, seconds, signal, log });
        table.push({ k, hubs, capacity, ...figures });
        return figures;
      } finally {
        await server.stop();
      }
    };
    // The small tenant: no hop (100 in the tenant object) vs half of them behind the hop.
    for (const [hubs, capacity] of [
      [1, 1000],
      [2, 50],
      [1, 1000],
      [2, 50],
    ]) {
      await measureOne(100, hubs, capacity);
    }
    for (const k of feasible) {
      for (const hubs of hubCounts) {
        try {
          await measureOne(k, hubs, Math.ceil(k / hubs));
        } catch (error) {
          if (signal?.aborted) throw error;
          log(`!! ${fmt(k)} subscribers on ${hubs} object(s): ${error.message}`);
          rows.push({
            name: `${fmt(k)} subscribers on ${hubs} object(s)`,
            value: Number.NaN,
            unit: "ms",
            note: error.message,
            errors: 1,
          });
        }
      }
    }
  } finally {
    await rm(built.dir, { recursive: true, force: true }).catch(() => {});
  }
  printTable(table, { latencyEvents, seconds });
  for (const r of table) {
    const name = `${fmt(r.k)} subscribers on ${r.hubs} object(s)`;
    const problems = r.problems ? `; !! ${r.problemNote}` : "";
    rows.push({
      name: `${name}: fan-out to the last`,
      value: r.p50,
      unit: "ms",
      note: `${latencyEvents} injects one at a time; p99 ${fmt(r.p99)} ms${problems}`,
      errors: r.problems,
    });
    rows.push({
      name: `${name}: full speed`,
      value: r.eventsPerSecond,
      unit: "events/s",
      note: `${fmt(r.framesPerSecond)} frames/s; workerd CPU ${fmt(r.cpuMsPerEvent)} ms per event`,
    });
  }
  return rows;
}

async function measure({ server, k, hubs, capacity, latencyEvents, seconds, signal, log }) {
  const url = gatewayUrl(server.baseUrl);
  const key = `agent:main:hubs-${randomUUID().slice(0, 8)}`;
  const workerd = await workerdPids(server.pid);
  const driver = await GatewayConn.open(url, { scopes: SCOPES });
  const first = await driver.request("chat.inject", { sessionKey: key, message: "first" });
  if (!first.ok) throw new Error(`chat.inject refused: ${JSON.stringify(first.error)}`);
  const seqBase = first.payload.messageSeq;
  const opened = await openMany(url, {
    count: k,
    concurrency: 32,
    signal,
    maxSeconds: 300,
    connect: { scopes: SCOPES },
  });
  const subs = opened.conns;
  try {
    if (opened.errors) throw new Error(`${opened.errors} of ${k} sockets failed to open: ${opened.errorSamples[0]}`);
    let next = 0;
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (next < subs.length) await subs[next++].call("sessions.messages.subscribe", { key });
      }),
    );
    const got = new Map(); // messageSeq → subscribers that have it
    const pending = new Map(); // messageSeq → resolve
    let frames = 0;
    let seqGaps = 0;
    const offs = subs.map((conn) => {
      let lastSeq = -1;
      return conn.onRawFrame((data) => {
        frames++;
        const seq = frameSeq(data);
        if (seq >= 0) {
          if (lastSeq >= 0 && seq !== lastSeq + 1) seqGaps++;
          lastSeq = seq;
        }
        const n = messageSeq(data);
        if (n < 0) return;
        const count = (got.get(n) ?? 0) + 1;
        got.set(n, count);
        if (count === k) pending.get(n)?.();
      });
    });
    let sent = 0;
    const inject = async () => {
      const answer = await driver.request("chat.inject", { sessionKey: key, message: `event ${sent++}` });
      const n = answer.payload?.messageSeq;
      if (typeof n !== "number") throw new Error(`inject failed: ${JSON.stringify(answer.error)}`);
      if ((got.get(n) ?? 0) === k) return performance.now();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`message ${n}: ${got.get(n) ?? 0} of ${k} after ${DELIVERY_TIMEOUT_MS} ms`)),
          DELIVERY_TIMEOUT_MS,
        );
        pending.set(n, () => {
          clearTimeout(timer);
          pending.delete(n);
          resolve(performance.now());
        });
      });
    };
    try {
      await new Promise((r) => setTimeout(r, 1000));
      for (let i = 0; i < 3; i++) await inject();
      const latencies = [];
      for (let i = 0; i < latencyEvents; i++) {
        signal?.throwIfAborted();
        const t0 = performance.now();
        latencies.push((await inject()) - t0);
      }
      const cpu0 = await cpuSeconds(workerd);
      const frames0 = frames;
      const run = await fullSpeed({ window: WINDOW, seconds, step: inject, signal });
      const events = run.steps;
      const elapsed = run.seconds;
      const cpu = (await cpuSeconds(workerd)) - cpu0;
      const missing = [...got.entries()].filter(([n, count]) => n > seqBase && count !== k).length;
      const latency = summarize(latencies);
      const figures = {
        p50: latency.p50,
        p99: latency.p99,
        eventsPerSecond: events / elapsed,
        framesPerSecond: (frames - frames0) / elapsed,
        cpuMsPerEvent: (1000 * cpu) / events,
        problems: seqGaps + missing,
        problemNote: `${seqGaps} seq gaps, ${missing} messages not at all ${k}`,
      };
      log(
        `${fmt(k)} subscribers, ${hubs} object(s) of ${fmt(capacity)}: fan-out p50 ${fmt(figures.p50)} ms, ` +
          `${fmt(figures.eventsPerSecond)} events/s${figures.problems ? `, !! ${figures.problemNote}` : ""}`,
      );
      return figures;
    } finally {
      for (const off of offs) off();
    }
  } finally {
    await closeAll(subs);
    await driver.close();
  }
}

function printTable(table, { latencyEvents, seconds }) {
  const lines = [
    "",
    "== hubs: K subscribers of one session over N gateway objects (tenant object + hub objects), one workerd ==",
    "| K | objects | sockets per object | fan-out p50 (p99) | events/s | frames/s | workerd CPU per event | problems |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
  ];
  for (const r of table) {
    lines.push(
      `| ${fmt(r.k)} | ${r.hubs} | ${fmt(Math.min(r.capacity, r.k))} | ${fmt(r.p50)} ms (${fmt(r.p99)}) | ${fmt(r.eventsPerSecond)} | ${fmt(r.framesPerSecond)} | ${fmt(r.cpuMsPerEvent)} ms | ${r.problems ? r.problemNote : "none"} |`,
    );
  }
  lines.push(
    "",
    `fan-out: ${latencyEvents} chat.injects one at a time, inject → every subscriber has its session.message; events/s: ${WINDOW} in flight for ${seconds} s.`,
    `${os.cpus().length} cores shared by workerd and this client; every object of one workerd shares one JavaScript thread.`,
  );
  console.log(lines.join("\n"));
}
