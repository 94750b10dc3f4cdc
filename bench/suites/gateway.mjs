// Gateway suite: WebSocket handshake time, session.message fan-out to K subscribers, memory of
// idle connected sockets.
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { closeAll, GatewayConn, gatewayUrl, messageText, openMany } from "../lib/gateway.mjs";
import { summarize } from "../lib/measure.mjs";
import { fdLimit, openFds, serverMemory } from "../lib/procs.mjs";

export const description =
  "gateway: handshake p50/p99, fan-out to 1 / 100 / 1,000 subscribers, RSS with 1,000 idle sockets";

const OPEN_CONCURRENCY = 16;
const SUBSCRIBE_CONCURRENCY = 64;
const DELIVERY_TIMEOUT_MS = 10_000;
const IDLE_SECONDS = 15;

const sessionPath = (key) => `/v1/sessions/${encodeURIComponent(key)}`;
const sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });

export async function run(ctx) {
  const { log, signal, server } = ctx;
  const quick = ctx.quick;
  const n = (count) => Math.max(1, Math.round(count * (quick ? 0.1 : 1)));
  const url = gatewayUrl(ctx.baseUrl);
  const rows = [];

  rows.push(...(await handshakes(ctx, url, n(200))));

  // File descriptors: every client socket is one fd here (and one in workerd).
  let sockets = quick ? 100 : 1000;
  const limit = await fdLimit();
  const inUse = await openFds();
  const room = limit.soft - inUse - 64;
  if (room < sockets) {
    log(
      `!! fd limit ${limit.soft} (hard ${limit.hard}) with ${inUse} open leaves room for ${room} sockets, not ${sockets}: raise it with 'ulimit -n ${sockets + 512}'`,
    );
    sockets = Math.max(1, room);
    rows.push({
      name: "fd limit too low",
      value: limit.soft,
      unit: "fds",
      note: `only ${sockets} sockets opened`,
      errors: 1,
    });
  } else {
    log(`fd limit ${limit.soft} (hard ${limit.hard}), ${inUse} in use: room for ${sockets} sockets`);
  }
  const fanouts = (quick ? [1, 10, 100] : [1, 100, 1000]).filter((k) => k <= sockets);

  const mem0 = await serverMemory(server.pid);
  log(`server processes: ${mem0.processes.map((p) => `${p.comm}(${p.pid}) ${p.rssMiB.toFixed(0)} MiB`).join(", ")}`);

  let conns = [];
  try {
    // Open the sockets.
    log(`opening ${sockets} connections at c=${OPEN_CONCURRENCY}`);
    const opened = await openMany(url, { count: sockets, concurrency: OPEN_CONCURRENCY, signal, maxSeconds: 120 });
    conns = opened.conns;
    const openStats = summarize(opened.timing);
    if (opened.errors) {
      log(`!! ${opened.errors} of ${sockets} connections failed`);
      for (const s of opened.errorSamples) log(`   e.g. ${s}`);
    }
    rows.push({
      name: `open ${sockets} connections`,
      value: conns.length / opened.seconds,
      unit: "conn/s",
      note: `${conns.length} ok in ${opened.seconds.toFixed(1)} s at c=${OPEN_CONCURRENCY}; handshake p50 ${openStats.p50.toFixed(1)} ms, p99 ${openStats.p99.toFixed(1)} ms${opened.timedOut ? "; TIMED OUT" : ""}`,
      errors: opened.errors + (opened.timedOut ? 1 : 0),
    });

    // Subscribe: conns[0..K-1] follow agent:main:fanout-K, for every K.
    const t0 = performance.now();
    const subscribeErrors = [];
    const subscriptions = [];
    for (const k of fanouts)
      for (let i = 0; i < Math.min(k, conns.length); i++) subscriptions.push([i, `agent:main:fanout-${k}`]);
    let next = 0;
    await Promise.all(
      Array.from({ length: SUBSCRIBE_CONCURRENCY }, async () => {
        while (next < subscriptions.length) {
          const [i, key] = subscriptions[next++];
          try {
            const payload = await conns[i].call("sessions.messages.subscribe", { key });
            if (payload?.subscribed !== true || payload.key !== key)
              throw new Error(`unexpected answer ${JSON.stringify(payload)}`);
          } catch (error) {
            subscribeErrors.push(error.message);
          }
        }
      }),
    );
    const subscribeSeconds = (performance.now() - t0) / 1000;
    if (subscribeErrors.length) log(`!! ${subscribeErrors.length} subscribe errors, e.g. ${subscribeErrors[0]}`);
    rows.push({
      name: "sessions.messages.subscribe",
      value: subscriptions.length / subscribeSeconds,
      unit: "req/s",
      note: `${subscriptions.length} subscriptions in ${subscribeSeconds.toFixed(2)} s at c=${SUBSCRIBE_CONCURRENCY}`,
      errors: subscribeErrors.length,
    });

    // Memory: active, then after an idle period long enough for hibernation (10 s).
    const memActive = await serverMemory(server.pid);
    log(
      `workerd RSS ${mem0.workerdMiB.toFixed(0)} MiB before, ${memActive.workerdMiB.toFixed(0)} MiB with ${conns.length} sockets; idling ${IDLE_SECONDS} s`,
    );
    const idleStart = performance.now();
    await sleep(IDLE_SECONDS * 1000, signal);
    const memIdle = await serverMemory(server.pid);
    const closedWhileIdle = conns.filter((c) => c.closed).length;
    const perSocket = (mib) => ((mib - mem0.workerdMiB) * 1024) / Math.max(1, conns.length);
    rows.push({
      name: "workerd RSS before sockets",
      value: mem0.workerdMiB,
      unit: "MiB",
      note: `${mem0.workerdPids.length} workerd process(es); all server processes ${mem0.totalMiB.toFixed(0)} MiB; OpenClaw gateway idle: ~0.8 GiB`,
    });
    rows.push({
      name: `workerd RSS, ${conns.length} sockets just subscribed`,
      value: memActive.workerdMiB,
      unit: "MiB",
      note: `+${(memActive.workerdMiB - mem0.workerdMiB).toFixed(1)} MiB, ${perSocket(memActive.workerdMiB).toFixed(1)} KiB/socket`,
    });
    const byPid = (mem) => new Map(mem.processes.map((p) => [p.pid, p]));
    const before = byPid(mem0);
    const growth = memIdle.processes
      .map((p) => ({ ...p, delta: p.rssMiB - (before.get(p.pid)?.rssMiB ?? 0) }))
      .sort((a, b) => b.delta - a.delta)
      .slice(0, 3)
      .map((p) => `${p.comm}(${p.pid}) ${p.delta >= 0 ? "+" : ""}${p.delta.toFixed(0)} MiB`)
      .join(", ");
    log(`RSS growth by process after idle: ${growth}`);
    rows.push({
      name: `workerd RSS, ${conns.length} sockets idle ${IDLE_SECONDS} s`,
      value: memIdle.workerdMiB,
      unit: "MiB",
      note: `+${(memIdle.workerdMiB - mem0.workerdMiB).toFixed(1)} MiB vs before, ${perSocket(memIdle.workerdMiB).toFixed(1)} KiB/socket; OpenClaw: 0.8–1.6 GiB (250 sockets +~200 MiB)`,
      errors: closedWhileIdle,
    });
    rows.push({
      name: `all server processes RSS, ${conns.length} sockets idle`,
      value: memIdle.totalMiB,
      unit: "MiB",
      note: `${(memIdle.totalMiB - mem0.totalMiB) >= 0 ? "+" : ""}${(memIdle.totalMiB - mem0.totalMiB).toFixed(1)} MiB vs before (npm/wrangler/esbuild/workerd); largest growth: ${growth}`,
    });
    if (closedWhileIdle)
      log(
        `!! ${closedWhileIdle} sockets closed while idle (e.g. ${JSON.stringify(conns.find((c) => c.closed)?.closed)})`,
      );

    // Fan-out. The first message after the idle period also measures waking the object.
    const fanRows = [];
    const largest = fanouts.at(-1);
    const wake = await fanOut(ctx, conns, largest, 1, { label: "wake" });
    fanRows.push({
      name: `fan-out K=${largest} first msg after idle`,
      value: wake.all.p50,
      unit: "ms",
      note: `POST → all ${largest} got session.message after ${((performance.now() - idleStart) / 1000).toFixed(0)} s idle; POST ${wake.post.p50.toFixed(1)} ms, first receiver ${wake.first.p50.toFixed(1)} ms`,
      errors: wake.errors,
    });
    // Did the tenant object restart while idle? A fresh object reports a small uptime.
    const sinceOpen = (performance.now() - idleStart) / 1000 + opened.seconds;
    try {
      const probe = await GatewayConn.open(url, { signal });
      const uptime = probe.hello?.snapshot?.uptimeMs;
      await probe.close();
      const restarted = typeof uptime === "number" && uptime / 1000 < sinceOpen - 2;
      fanRows.push({
        name: "tenant object uptime after idle",
        value: uptime / 1000,
        unit: "s",
        note: restarted
          ? `< ${sinceOpen.toFixed(0)} s since the sockets opened: the object was evicted (hibernated) while idle and woke on the next message`
          : `≥ ${sinceOpen.toFixed(0)} s since the sockets opened: the object stayed in memory (no hibernation observed)`,
      });
    } catch (error) {
      fanRows.push({
        name: "tenant object uptime after idle",
        value: Number.NaN,
        unit: "s",
        note: error.message,
        errors: 1,
      });
    }

    for (const k of fanouts) {
      signal?.throwIfAborted();
      const reps = n(30);
      log(`fan-out K=${k}: ${reps} sequential messages`);
      const result = await fanOut(ctx, conns, k, reps, { label: `k${k}` });
      fanRows.push({
        name: `fan-out K=${k} → all p50`,
        value: result.all.p50,
        unit: "ms",
        note: `n=${result.complete}/${reps} complete; POST p50 ${result.post.p50.toFixed(1)} ms; first receiver p50 ${result.first.p50.toFixed(1)} ms`,
        errors: result.errors,
      });
      fanRows.push({
        name: `fan-out K=${k} → all p99`,
        value: result.all.p99,
        unit: "ms",
        note: `max ${result.all.max.toFixed(1)} ms; first receiver p99 ${result.first.p99.toFixed(1)} ms`,
      });
      fanRows.push({
        name: `fan-out K=${k} missed deliveries`,
        value: result.missed,
        unit: "msgs",
        note: `of ${result.expected} expected within ${DELIVERY_TIMEOUT_MS / 1000} s; duplicates ${result.duplicates}, misrouted ${result.misrouted}${k >= 250 ? "; OpenClaw K=250: 61 ms, 0 missed" : ""}`,
        errors: result.missed + result.duplicates + result.misrouted,
      });
    }
    rows.push(...fanRows);
  } finally {
    const count = conns.length;
    const unclean = await closeAll(conns);
    if (count) {
      await sleep(2000).catch(() => {});
      const memClosed = await serverMemory(server.pid).catch(() => null);
      if (unclean) log(`!! ${unclean} of ${count} sockets did not close cleanly within 5 s`);
      rows.push({
        name: `close ${count} sockets`,
        value: memClosed?.workerdMiB ?? Number.NaN,
        unit: "MiB",
        note: `workerd RSS 2 s after closing; ${unclean} unclean closes`,
        errors: unclean,
      });
    }
  }
  return rows;
}

/** (a) Sequential handshakes: open → connect.challenge → connect → hello-ok, then close. */
async function handshakes({ log, signal }, url, reps) {
  const challenge = [];
  const hello = [];
  const errorSamples = [];
  let errors = 0;
  let unclean = 0;
  const warmups = 5;
  const deadline = performance.now() + 90_000;
  log(`handshake: ${reps} sequential connections`);
  for (let i = 0; i < warmups + reps && performance.now() < deadline; i++) {
    signal?.throwIfAborted();
    try {
      const conn = await GatewayConn.open(url, { signal, timeoutMs: 10_000 });
      if (i >= warmups) {
        challenge.push(conn.timing.challengeMs);
        hello.push(conn.timing.helloMs);
      }
      if (!(await conn.close()).clean) unclean++;
    } catch (error) {
      errors++;
      if (errorSamples.length < 5) errorSamples.push(error.message);
    }
  }
  if (hello.length + errors < reps) errors++; // ran out of time
  if (errors) for (const s of errorSamples) log(`!! handshake: ${s}`);
  const h = summarize(hello);
  const c = summarize(challenge);
  return [
    {
      name: "handshake → hello-ok p50",
      value: h.p50,
      unit: "ms",
      note: `n=${h.n} sequential; open → challenge p50 ${c.p50.toFixed(1)} ms`,
      errors,
    },
    {
      name: "handshake → hello-ok p99",
      value: h.p99,
      unit: "ms",
      note: `max ${h.max.toFixed(1)} ms; open → challenge p99 ${c.p99.toFixed(1)} ms; ${unclean} unclean closes`,
      errors: unclean,
    },
  ];
}

/**
 * (b) `reps` sequential appends over HTTP to agent:main:fanout-K; each is timed from sending
 * the POST until all of conns[0..K-1] got the matching session.message. Also checks that no
 * other connection gets it (misrouted) and that nobody gets it twice.
 */
async function fanOut({ client, signal, log }, conns, k, reps, { label }) {
  const key = `agent:main:fanout-${k}`;
  const targets = conns.slice(0, k);
  let current = null; // { token, t0, got: Set<index>, first, done, resolve }
  const seen = new Map(); // token → Set of conn indices (for duplicates after completion)
  let duplicates = 0;
  let misrouted = 0;
  const offs = conns.map((conn, index) =>
    conn.onEvent((frame) => {
      if (frame.event !== "session.message" || frame.payload?.sessionKey !== key) return;
      const text = messageText(frame.payload.message);
      if (!text.startsWith(`fanout ${label} `)) return;
      if (index >= k) {
        misrouted++;
        return;
      }
      const set = seen.get(text);
      if (!set) return; // not ours (an earlier run of this key)
      if (set.has(index)) {
        duplicates++;
        return;
      }
      set.add(index);
      if (current && current.token === text) {
        const now = performance.now();
        current.first ??= now - current.t0;
        if (set.size === targets.length) {
          current.all = now - current.t0;
          current.resolve();
        }
      }
    }),
  );
  const all = [];
  const first = [];
  const post = [];
  let missed = 0;
  let complete = 0;
  let errors = 0;
  try {
    for (let i = 0; i < reps; i++) {
      signal?.throwIfAborted();
      const token = `fanout ${label} ${i} ${randomUUID()}`;
      seen.set(token, new Set());
      const done = new Promise((resolve) => {
        current = { token, t0: 0, first: undefined, all: undefined, resolve };
      });
      current.t0 = performance.now();
      try {
        await client.post(`${sessionPath(key)}/messages`, { role: "user", content: token }, { expect: 201 });
        post.push(performance.now() - current.t0);
      } catch (error) {
        errors++;
        log(`!! fan-out ${key}: ${error.message}`);
      }
      let timer;
      await Promise.race([done, new Promise((resolve) => (timer = setTimeout(resolve, DELIVERY_TIMEOUT_MS)))]);
      clearTimeout(timer);
      const got = seen.get(token).size;
      if (current.first !== undefined) first.push(current.first);
      if (current.all !== undefined) {
        all.push(current.all);
        complete++;
      } else {
        missed += targets.length - got;
        log(
          `!! fan-out ${key} message ${i}: ${got}/${targets.length} subscribers got it within ${DELIVERY_TIMEOUT_MS} ms`,
        );
      }
      current = null;
    }
  } finally {
    // Give stragglers a moment to show up as duplicates or misrouted, then detach.
    await sleep(100).catch(() => {});
    for (const off of offs) off();
  }
  const closed = targets.filter((c) => c.closed).length;
  if (closed) log(`!! fan-out ${key}: ${closed} subscribers' sockets are closed`);
  return {
    all: summarize(all),
    first: summarize(first),
    post: summarize(post),
    complete,
    missed,
    duplicates,
    misrouted,
    expected: reps * targets.length,
    errors: errors + (complete < reps ? reps - complete : 0),
  };
}
