// The hub split, simulated (README "The tenant's ceiling", next step 2): gateway sockets spread
// over N hub objects, an event goes from the tenant object to the hubs that have a subscriber for
// its key, each hub fans out to its own sockets. Does fan-out capacity grow with N?
//
// On Cloudflare every Durable Object runs on its own thread; locally all objects of one workerd
// share one JS thread, so hubs inside one workerd could not show it. Each hub and the tenant
// therefore run in their own workerd (bench/lib/hub-worker.mjs through bench/lib/direct-server.mjs
// --worker), and the bench client publishes every event to the tenant process, which forwards it
// to the hubs (one HTTP request per hub: the tenant → hub hop of the split, so its cost is
// counted). The control row "1, no hop" is today's layout: the event goes straight to the one
// object that holds every socket (the bench client plays the session object that publishes).
// It needs nothing from the service run.mjs starts (that one idles meanwhile).
//
// Per configuration and K idle subscribers (spread evenly, socket i on hub i mod N): the fan-out
// to the last subscriber, one event at a time; events/s at full speed (WINDOW events in flight,
// each complete once every subscriber has it); frames/s; CPU of the workerd processes and of this
// client. Every subscriber checks that its seq has no gap, every event reaches exactly K sockets.
// The client shares this machine's cores with the workerds, so it reads frames cheaply (below).
// Configurations alternate in rounds (order reversed every round), as in `versus`.
import { randomUUID } from "node:crypto";
import os from "node:os";
import { performance } from "node:perf_hooks";
import { closeAll, gatewayUrl, openMany } from "../lib/gateway.mjs";
import { httpClient } from "../lib/http.mjs";
import { fmt, fullSpeed, summarize } from "../lib/measure.mjs";
import { cpuSeconds, fdLimit, openFds, workerdPids } from "../lib/procs.mjs";
import { startWorkerServer } from "../lib/server.mjs";

export const description =
  "hubsplit: fan-out over N hub objects (each in its own workerd) behind a tenant object, vs one object";

/** `hubs`: hub processes used; `hop`: events go through the tenant process (false: straight to the hub). */
const CONFIGS = [
  { id: "direct", label: "1, no hop (today)", hubs: 1, hop: false },
  { id: "h1", label: "1", hubs: 1, hop: true },
  { id: "h2", label: "2", hubs: 2, hop: true },
  { id: "h4", label: "4", hubs: 4, hop: true },
];
const WINDOW = 8;
const DELIVERY_TIMEOUT_MS = 20_000;
/** A session.message payload of the service's size: message plus session row, a frame of ≈0.6 kB. */
const TEXT = "The build finished: 214 tests passed, 0 failed. ".repeat(4).trim();

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function payload(key, n) {
  const row = `{"key":${JSON.stringify(key)},"kind":"direct","label":"hub split","updatedAt":${Date.now()},"totalTokens":${1000 + n},"model":"echo"}`;
  const message = `{"role":"assistant","content":[{"type":"text","text":"${TEXT} #${n}"}],"timestamp":${Date.now()}}`;
  return `{"n":${n},"sessionKey":${JSON.stringify(key)},"messageId":"${randomUUID()}","messageSeq":${n + 1},"message":${message},"session":${row}}`;
}

// The client reads frames cheaply so that the hubs, not it, are measured: a socket's first frame
// is parsed and checked in full, every later one only by its bytes (the fixed head the hub
// renders, the event number after it and the seq at the end; no string, no JSON.parse).
const HEAD = Buffer.from('{"type":"event","event":"session.message","payload":{"n":');
const SEQ = Buffer.from('"seq":');

/** { n, seq } of a frame the hub rendered, read from its bytes; null when it is not one. */
function readFrame(data) {
  if (data.length < HEAD.length + SEQ.length + 3 || data.compare(HEAD, 0, HEAD.length, 0, HEAD.length) !== 0)
    return null;
  let n = 0;
  let i = HEAD.length;
  for (; data[i] >= 48 && data[i] <= 57; i++) n = n * 10 + data[i] - 48;
  if (i === HEAD.length || data[data.length - 1] !== 125) return null; // digits, then "}" at the end
  let seq = 0;
  let scale = 1;
  let j = data.length - 2;
  for (; data[j] >= 48 && data[j] <= 57; j--, scale *= 10) seq += (data[j] - 48) * scale;
  const at = j + 1 - SEQ.length;
  if (j === data.length - 2 || data.compare(SEQ, 0, SEQ.length, at, j + 1) !== 0) return null;
  return { n, seq };
}

/** A frame parsed in full: a session.message of `key` whose bytes agree with readFrame. */
function checkedFrame(data, key) {
  const quick = readFrame(data);
  let frame;
  try {
    frame = JSON.parse(data.toString("utf8"));
  } catch {
    return null;
  }
  const ok =
    quick &&
    frame.type === "event" &&
    frame.event === "session.message" &&
    frame.payload?.sessionKey === key &&
    frame.payload.n === quick.n &&
    frame.seq === quick.seq &&
    typeof frame.payload.message?.content?.[0]?.text === "string";
  return ok ? quick : null;
}

export async function run(ctx) {
  const { log, signal, quick } = ctx;
  const cwd = ctx.repoRoot ?? process.cwd();
  const ks = quick ? [100, 300] : [1000, 3000];
  const rounds = quick ? 1 : 3;
  const latencyEvents = quick ? 8 : 25;
  const seconds = quick ? 2 : 5;
  const loadAtStart = os.loadavg()[0];

  const room = (await fdLimit()).soft - (await openFds()) - 256;
  if (room < Math.max(...ks)) {
    throw new Error(
      `fd limit leaves room for ${room} sockets, not ${Math.max(...ks)}: raise it with 'ulimit -n 16384'`,
    );
  }

  const maxHubs = Math.max(...CONFIGS.map((c) => c.hubs));
  const dos = { HUB: "Hub", TENANT: "Tenant" };
  const servers = [];
  const start = async (role, vars) => {
    const server = await startWorkerServer({
      cwd,
      worker: "hub-worker.mjs",
      durableObjects: dos,
      vars: { ROLE: role, ...vars },
      label: `${role} (hub-worker.mjs in its own workerd)`,
      log,
    });
    servers.push(server);
    server.workerd = await workerdPids(server.pid);
    return server;
  };
  try {
    const tenant = await start("tenant", {});
    const hubs = [];
    for (let i = 0; i < maxHubs; i++) hubs.push(await start(`hub`, { TENANT_URL: tenant.baseUrl }));
    log(`tenant + ${maxHubs} hub processes up (workerd pids ${servers.map((s) => s.workerd.join("+")).join(", ")})`);
    return await measureAll({ ctx, tenant, hubs, ks, rounds, latencyEvents, seconds, loadAtStart });
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    if (signal?.aborted) log("aborted");
  }
}

async function measureAll({ ctx, tenant, hubs, ks, rounds, latencyEvents, seconds, loadAtStart }) {
  const { log, signal } = ctx;
  const runId = randomUUID().slice(0, 8);
  const results = new Map(); // `${config.id}/${k}` → { config, k, rounds: [per-round figures], errors, notes }
  const entry = (config, k) => {
    const id = `${config.id}/${k}`;
    if (!results.has(id)) results.set(id, { config, k, rounds: [], errors: 0, notes: [] });
    return results.get(id);
  };

  /** One configuration with k subscribers, one round: its figures (see printSplitTable). */
  async function measure(config, k, round) {
    const key = `hubsplit-${runId}-${config.id}-${k}-${round}`;
    const used = hubs.slice(0, config.hubs);
    const publisher = httpClient((config.hop ? tenant : used[0]).baseUrl, { signal });
    /** CPU seconds so far of the tenant's workerd (0 without the hop) and of each hub's. */
    const cpuNow = async () => ({
      tenant: config.hop ? await cpuSeconds(tenant.workerd) : 0,
      hubs: await Promise.all(used.map((h) => cpuSeconds(h.workerd))),
    });

    // Socket i on hub i mod N: an even spread, opened 32 handshakes at a time overall.
    const counts = used.map((_, h) => Math.floor(k / used.length) + (h < k % used.length ? 1 : 0));
    const opened = await Promise.all(
      used.map((hub, h) =>
        openMany(gatewayUrl(hub.baseUrl), {
          count: counts[h],
          concurrency: Math.ceil(32 / used.length),
          signal,
          maxSeconds: 180,
        }),
      ),
    );
    const subs = opened.flatMap((o) => o.conns);
    try {
      const failed = opened.reduce((s, o) => s + o.errors, 0);
      if (failed)
        throw new Error(`${failed} of ${k} sockets failed to open: ${opened.find((o) => o.errors).errorSamples[0]}`);
      let next = 0;
      await Promise.all(
        Array.from({ length: 64 }, async () => {
          while (next < subs.length) await subs[next++].call("sessions.messages.subscribe", { key });
        }),
      );

      // Delivery tracking: per event how many sockets have it; per socket its last seq.
      const pending = new Map(); // n → { resolve, reject, timer }
      const got = new Map(); // n → sockets that received it (every event of this measurement)
      let frames = 0;
      let seqGaps = 0;
      let badFrames = 0;
      const offs = subs.map((conn) => {
        let lastSeq = 0;
        return conn.onRawFrame((data) => {
          const frame = lastSeq === 0 ? checkedFrame(data, key) : readFrame(data);
          if (!frame) {
            badFrames++;
            return;
          }
          frames++;
          if (frame.seq !== lastSeq + 1) seqGaps++;
          lastSeq = frame.seq;
          const count = (got.get(frame.n) ?? 0) + 1;
          got.set(frame.n, count);
          const waiter = pending.get(frame.n);
          if (waiter && count === k) {
            pending.delete(frame.n);
            clearTimeout(waiter.timer);
            waiter.resolve(performance.now());
          }
        });
      });
      let eventNo = 0;
      /** Publishes one event; resolves with the time the last subscriber had it. */
      const publish = async () => {
        const n = eventNo++;
        const delivered = new Promise((resolve, reject) => {
          const timer = setTimeout(() => {
            pending.delete(n);
            reject(
              new Error(`event ${n}: ${got.get(n) ?? 0} of ${k} subscribers had it after ${DELIVERY_TIMEOUT_MS} ms`),
            );
          }, DELIVERY_TIMEOUT_MS);
          pending.set(n, { resolve, reject, timer });
        });
        const [{ text }, at] = await Promise.all([
          publisher.post(`/publish?key=${encodeURIComponent(key)}`, payload(key, n)),
          delivered,
        ]);
        const answer = JSON.parse(text);
        if (answer.sent !== k || (config.hop && answer.hubs !== used.length))
          throw new Error(
            `event ${n}: sent to ${answer.sent} sockets on ${answer.hubs ?? 1} hub(s), not ${k} on ${used.length}`,
          );
        return at;
      };

      try {
        await sleep(1000); // idle: the subscribers have settled
        for (let i = 0; i < 3; i++) await publish(); // warm-up
        // (a) One event at a time: publish → the last subscriber has it.
        const latencies = [];
        for (let i = 0; i < latencyEvents; i++) {
          signal?.throwIfAborted();
          const t0 = performance.now();
          latencies.push((await publish()) - t0);
        }
        // (b) Full speed: WINDOW events in flight, each done once every subscriber has it.
        const cpu0 = await cpuNow();
        const client0 = process.cpuUsage();
        const frames0 = frames;
        const run = await fullSpeed({ window: WINDOW, seconds, step: publish, signal });
        const events = run.steps;
        const elapsed = run.seconds;
        const clientUsage = process.cpuUsage(client0);
        const cpu1 = await cpuNow();
        const tenantCpu = cpu1.tenant - cpu0.tenant;
        const hubCpu = cpu1.hubs.map((s, h) => s - cpu0.hubs[h]);
        const clientCpu = (clientUsage.user + clientUsage.system) / 1e6;
        const workerdCpu = tenantCpu + hubCpu.reduce((a, b) => a + b, 0);
        const busiest = Math.max(tenantCpu, ...hubCpu);
        const missing = [...got.values()].filter((c) => c !== k).length + (eventNo - got.size);
        const problems = seqGaps + missing + badFrames;
        const latency = summarize(latencies);
        const figures = {
          p50: latency.p50,
          p99: latency.p99,
          eventsPerSecond: events / elapsed,
          framesPerSecond: (frames - frames0) / elapsed,
          cpuMsPerEvent: (1000 * workerdCpu) / events,
          tenantMsPerEvent: (1000 * tenantCpu) / events,
          busiestHubMsPerEvent: (1000 * Math.max(...hubCpu)) / events,
          busiestMsPerEvent: (1000 * busiest) / events,
          busiestBusy: busiest / elapsed,
          coresBusy: (workerdCpu + clientCpu) / elapsed,
          clientCores: clientCpu / elapsed,
          clientMsPerEvent: (1000 * clientCpu) / events,
          problems,
          problemNote: problems
            ? `${seqGaps} seq gaps, ${missing} events not at exactly ${k} sockets, ${badFrames} bad frames`
            : "",
        };
        log(
          `${config.label} hub(s), ${k} subscribers, round ${round + 1}: fan-out p50 ${fmt(figures.p50)} ms, ` +
            `${fmt(figures.eventsPerSecond)} events/s, busiest object ${fmt(100 * figures.busiestBusy)} % of a core, ` +
            `${fmt(figures.coresBusy)} cores busy`,
        );
        return figures;
      } finally {
        for (const off of offs) off();
        for (const waiter of pending.values()) clearTimeout(waiter.timer);
      }
    } finally {
      await closeAll(subs);
    }
  }

  for (const k of ks) {
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? CONFIGS : [...CONFIGS].reverse();
      for (const config of order) {
        signal?.throwIfAborted();
        log(`${config.label} hub(s), ${fmt(k)} subscribers (round ${round + 1}/${rounds})`);
        const r = entry(config, k);
        try {
          const figures = await measure(config, k, round);
          r.rounds.push(figures);
          r.errors += figures.problems;
          if (figures.problemNote) r.notes.push(figures.problemNote);
        } catch (error) {
          if (signal?.aborted) throw error;
          log(`!! ${config.label} hub(s), ${k} subscribers: ${error.message}`);
          r.errors += 1;
          r.notes.push(error.message.slice(0, 160));
        }
      }
    }
  }

  // Every figure is the median over the rounds (robust to one round disturbed by other load).
  const table = [...results.values()].map((r) => {
    const row = { config: r.config, k: r.k, errors: r.errors, notes: r.notes, rounds: r.rounds.length };
    for (const field of Object.keys(r.rounds[0] ?? {})) {
      if (typeof r.rounds[0][field] === "number") row[field] = median(r.rounds.map((f) => f[field]));
    }
    return row;
  });
  printSplitTable(table, { rounds, seconds, latencyEvents, loadAtStart });
  const rows = [];
  for (const r of table) {
    const name = `${r.config.label} hub(s), ${fmt(r.k)} subscribers`;
    const problems = r.notes.length ? `; ${r.notes.join("; ")}` : "";
    rows.push({
      name: `${name}: fan-out to the last`,
      value: r.p50 ?? Number.NaN,
      unit: "ms",
      note: `${latencyEvents} events one at a time, median of ${r.rounds} round(s); p99 ${fmt(r.p99)} ms${problems}`,
      errors: r.errors,
    });
    rows.push({
      name: `${name}: full speed`,
      value: r.eventsPerSecond ?? Number.NaN,
      unit: "events/s",
      note:
        `${fmt(r.framesPerSecond)} frames/s; workerd CPU ${cpuText(r)} per event; busiest object ` +
        `${fmt(100 * r.busiestBusy)} % of a core (alone on one: ${fmt(1000 / r.busiestMsPerEvent)} events/s); ` +
        `${fmt(r.coresBusy)} cores busy, bench client ${fmt(r.clientMsPerEvent)} ms/event`,
    });
  }
  return rows;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** "90.2 ms (tenant 2.4, busiest hub 22.3)": the workerd CPU of one event at full speed. */
function cpuText(r) {
  const parts = r.config.hop ? [`tenant ${fmt(r.tenantMsPerEvent)}`] : [];
  if (r.config.hubs > 1) parts.push(`busiest hub ${fmt(r.busiestHubMsPerEvent)}`);
  return `${fmt(r.cpuMsPerEvent)} ms${parts.length ? ` (${parts.join(", ")})` : ""}`;
}

function printSplitTable(table, { rounds, seconds, latencyEvents, loadAtStart }) {
  const cpus = os.cpus().length;
  const lines = [
    "",
    "== hubsplit: K idle subscribers spread over N hub objects (each in its own workerd), events through the tenant object ==",
    "| N hubs | K | fan-out p50 | events/s | frames/s | workerd CPU per event | busiest object's thread | cores busy (bench client) |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
  ];
  for (const r of table) {
    const cells = [
      r.config.label,
      fmt(r.k),
      `${fmt(r.p50)} ms`,
      fmt(r.eventsPerSecond),
      fmt(r.framesPerSecond),
      cpuText(r),
      `${fmt(100 * r.busiestBusy)} % busy; alone on a core ${fmt(1000 / r.busiestMsPerEvent)} events/s`,
      `${fmt(r.coresBusy)} (${fmt(r.clientCores)})`,
    ];
    lines.push(`| ${cells.join(" | ")} |${r.errors ? " !! errors" : ""}`);
  }
  lines.push(
    "",
    `Median of ${rounds} round(s), configurations alternating. fan-out p50: ${latencyEvents} events one at a time, publish → the last`,
    `subscriber has it. events/s: ${seconds} s at full speed, ${WINDOW} events in flight, each counted once every subscriber has it;`,
    "frames/s: frames the subscribers received. Every subscriber checked its seq (no gap) and every event reached exactly K.",
    '"1, no hop" is today\'s layout (the event goes straight to the one object holding every socket); the other rows',
    "pay the tenant → hub hop (one HTTP request per hub and event, its CPU in the tenant's share).",
    "busiest object's thread: the CPU of the busiest object (tenant or hub) over the full-speed run, as a share of one",
    "core, and 1 s ÷ its CPU per event: the events/s its thread could carry with a core to itself, as each Durable",
    "Object has on Cloudflare (derived, not measured). cores busy: workerd processes and bench client together.",
    `This machine has ${cpus} core(s), shared by the tenant and hub workerd processes and by this bench client (node,`,
    "reading every frame: the first of each socket parsed in full, the rest checked by their bytes, n and seq);",
    `load average at start ${loadAtStart.toFixed(2)}. The measured events/s cannot grow past what ${cpus} cores give all of them`,
    "together; on Cloudflare each hub has its own thread and the subscribers their own machines, so the gain measured",
    "here is a lower bound.",
  );
  console.log(lines.join("\n"));
}
