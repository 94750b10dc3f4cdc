// Side by side with the real OpenClaw gateway (A) when one is reachable, else this service (B)
// alone: the same client code against both, A and B alternating in every phase (the order
// swapped each round), B/A printed per row (below 1 = this service is faster / smaller).
// The peer: `bash ../shared/peer/start-peer.sh` (ws://127.0.0.1:18789); override with
// BENCH_PEER_URL / BENCH_PEER_TOKEN, or BENCH_PEER=off to skip it.
// With `--direct` (ctx.runtime "direct") a runtime floor control (F) runs in the transport and fan-out rows
// too: bench/lib/floor-worker.mjs, an empty hibernating Durable Object served the same way in its
// own workerd, i.e. the least any gateway on this runtime can cost; its figure goes in the note.
import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { performance } from "node:perf_hooks";
import { closeAll, GatewayConn, gatewayUrl, messageText, openMany } from "../lib/gateway.mjs";
import { DEV_OPERATOR_TOKEN, httpClient } from "../lib/http.mjs";
import { fmt, runConcurrent, summarize } from "../lib/measure.mjs";
import { cpuSeconds, workerdPids } from "../lib/procs.mjs";
import { startFloorServer } from "../lib/server.mjs";

export const description =
  "versus: the issue-17 table side by side with the real OpenClaw gateway (when reachable), B/A per row";

const PEER_URL = process.env.BENCH_PEER_URL ?? "ws://127.0.0.1:18789";
/** The real gateway's process (start-peer.sh writes it), for CPU per operation. */
const PEER_PID_FILE = `${process.env.PEER_DIR ?? "/tmp/peer"}/gateway.pid`;
const PEER_TOKEN = process.env.BENCH_PEER_TOKEN ?? "peer-test-token-0123456789abcdef";
/** OpenClaw's own backend client identity: the real gateway grants it the requested scopes. */
const CLIENT = { id: "gateway-client", version: "0.1.0", platform: "linux", mode: "backend" };
const SCOPES = ["operator.admin", "operator.read", "operator.write"];
const DELIVERY_TIMEOUT_MS = 15_000;
/** BENCH_ONLY=<regex>: only the workloads whose name matches (setup phases still run when needed). */
const ONLY = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY, "i") : null;
const wanted = (pattern) => !ONLY || ONLY.test(pattern);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const FLOOR_NOTE = "runtime floor (empty hibernating DO, same workerd build)";

/** The real gateway when its /health answers, else null. */
async function findPeer(log) {
  if (process.env.BENCH_PEER === "off") return null;
  const url = new URL(PEER_URL);
  if (url.hostname !== "127.0.0.1") throw new Error(`BENCH_PEER_URL must be on 127.0.0.1, not ${url.hostname}`);
  const base = `http://${url.host}`;
  try {
    const res = await fetch(`${base}/health`, { signal: AbortSignal.timeout(2_000) });
    if (res.status === 200 && (await res.json()).ok === true) return { base, ws: url.href };
  } catch {
    // not running
  }
  log(`no real gateway at ${PEER_URL}: this service alone (start one with ../shared/peer/start-peer.sh)`);
  return null;
}

function target(label, base, wsUrl, token, signal, pids) {
  return {
    label,
    /** CPU seconds the target's processes used so far (NaN when they are not known). */
    cpu: async () => {
      const list = await pids();
      return list.length ? cpuSeconds(list) : Number.NaN;
    },
    http: httpClient(base, { token, signal }),
    open: (opts = {}) => GatewayConn.open(wsUrl, { token, client: CLIENT, scopes: SCOPES, signal, ...opts }),
    openMany: (count, concurrency) =>
      openMany(wsUrl, {
        count,
        concurrency,
        signal,
        maxSeconds: 180,
        connect: { token, client: CLIENT, scopes: SCOPES },
      }),
  };
}

const workerdPidsOf = (rootPid) => () => workerdPids(rootPid);

export async function run(ctx) {
  // The floor is started only with --direct: it is a floor for the path the service takes then
  // (client → workerd → one hibernating object). Under wrangler dev the service pays the dev
  // proxy worker's hop on top, which a bare-workerd floor would not, so a "floor" there would
  // mostly measure the proxy. It is stopped here (and by the runner's stopAllServers as a backstop).
  if (ctx.runtime !== "direct") {
    ctx.log("no runtime floor control (only with --direct, where the service has no dev proxy hop either)");
    return compare(ctx, null);
  }
  ctx.log("starting the runtime floor control (bench/lib/floor-worker.mjs)");
  const floor = await startFloorServer({ cwd: ctx.repoRoot ?? process.cwd(), log: ctx.log });
  try {
    return await compare(ctx, floor);
  } finally {
    await floor.stop();
  }
}

async function compare(ctx, floorServer) {
  const { log, signal, quick } = ctx;
  const n = (count) => Math.max(1, Math.round(count * (quick ? 0.1 : 1)));
  const peer = await findPeer(log);
  const B = target(
    "this service",
    ctx.baseUrl,
    gatewayUrl(ctx.baseUrl),
    DEV_OPERATOR_TOKEN,
    signal,
    workerdPidsOf(ctx.server.pid),
  );
  const F = floorServer
    ? target(
        "runtime floor",
        floorServer.baseUrl,
        gatewayUrl(floorServer.baseUrl),
        DEV_OPERATOR_TOKEN,
        signal,
        workerdPidsOf(floorServer.pid),
      )
    : null;
  const peerPids = async () => {
    const pid = Number(await readFile(PEER_PID_FILE, "utf8").catch(() => ""));
    return pid > 0 ? [pid] : [];
  };
  const A = peer ? target("real gateway", peer.base, peer.ws, PEER_TOKEN, signal, peerPids) : null;
  const targets = A ? [A, B] : [B];
  const runId = randomUUID().slice(0, 8);
  const table = []; // { workload, a, b, f, unit, better: "lower"|"higher" }
  const rows = [];
  let errors = 0;

  /**
   * One workload: `measure(t, round)` → { value, note?, errors? } per target and round, rounds
   * alternating the order; the values of the rounds are combined by `combine` (median).
   * `floor`: the runtime floor control (when running) is measured too, alternating with A and B.
   */
  async function phase(workload, unit, better, measure, { rounds = 2, floor = false } = {}) {
    signal?.throwIfAborted();
    if (ONLY && !ONLY.test(workload)) return;
    const phaseTargets = floor && F ? [...targets, F] : targets;
    const results = new Map(phaseTargets.map((t) => [t, []]));
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? phaseTargets : [...phaseTargets].reverse();
      for (const t of order) {
        log(`${workload} — ${t.label} (round ${round + 1}/${rounds})`);
        try {
          results.get(t).push(await measure(t, round));
        } catch (error) {
          if (signal?.aborted) throw error;
          log(`!! ${workload} — ${t.label}: ${error.message}`);
          results.get(t).push({ value: Number.NaN, errors: 1, note: error.message.slice(0, 120) });
        }
      }
    }
    const combined = (t) => {
      const list = results.get(t);
      const values = list.map((r) => r.value).filter(Number.isFinite);
      return {
        value: values.length ? summarize(values).p50 : Number.NaN,
        errors: list.reduce((s, r) => s + (r.errors ?? 0), 0),
        note: list.at(-1)?.note ?? "",
      };
    };
    const b = combined(B);
    const a = A ? combined(A) : null;
    const f = results.has(F) ? combined(F) : null;
    // The real gateway's refusals are a finding (shown), not a failure of this run; the floor's
    // failures are shown too (a control that fails leaves the row without its floor, B stands).
    errors += b.errors;
    if (f?.errors) log(`!! ${workload} — runtime floor: ${f.errors} failed round(s): ${f.note}`);
    table.push({ workload, a: a?.value, b: b.value, f: f?.value, unit, better });
    const ratio = a ? b.value / a.value : Number.NaN;
    rows.push({
      name: workload,
      value: b.value,
      unit,
      note: [
        a ? `real gateway ${fmt(a.value)} ${unit}; B/A ${fmt(ratio)}` : "",
        b.note,
        a?.note ? `A: ${a.note}` : "",
        a?.errors ? `A had ${a.errors} failed round(s)` : "",
        f ? `${FLOOR_NOTE} ${fmt(f.value)} ${unit}${f.errors ? ` (${f.errors} failed round(s): ${f.note})` : ""}` : "",
      ]
        .filter(Boolean)
        .join("; "),
      // The real gateway's refusals (503 to a burst) are a finding shown in the note, not a failure of this run.
      errors: b.errors,
    });
  }

  const p50Of = async (total, concurrency, task) => {
    const r = await runConcurrent({ total, concurrency, task, signal, maxSeconds: 180 });
    if (r.errors) throw new Error(`${r.errors} of ${r.count} failed, e.g. ${r.errorSamples[0]}`);
    return r;
  };

  // ── Transport: /health, handshakes, bursts ──
  await phase(
    "empty GET /health",
    "ms",
    "lower",
    async (t) => {
      const r = await p50Of(n(200), 1, () => t.http.get("/health"));
      return { value: r.p50, note: `n=${r.ok}` };
    },
    { floor: true },
  );

  await phase(
    "handshake → hello-ok",
    "ms",
    "lower",
    async (t) => {
      const hello = [];
      const challenge = [];
      for (let i = 0; i < n(150) + 5; i++) {
        const conn = await t.open();
        if (i >= 5) {
          hello.push(conn.timing.helloMs);
          challenge.push(conn.timing.challengeMs);
        }
        await conn.close();
      }
      const h = summarize(hello);
      return {
        value: h.p50,
        note: `n=${h.n}, p99 ${fmt(h.p99)} ms; open → challenge p50 ${fmt(summarize(challenge).p50)} ms`,
      };
    },
    { floor: true },
  );

  await phase(
    "open socket + subscribe, 16 at a time",
    "ms",
    "lower",
    async (t, round) => {
      const conns = [];
      const key = `agent:main:vs-${runId}-sub-${round}`;
      try {
        const r = await p50Of(n(320), 16, async () => {
          const conn = await t.open();
          conns.push(conn);
          await conn.call("sessions.messages.subscribe", { key });
        });
        return { value: r.p50, note: `n=${r.ok}, p99 ${fmt(r.p99)} ms, ${fmt(r.perSecond)} sockets/s` };
      } finally {
        await closeAll(conns);
      }
    },
    { floor: true },
  );

  await phase(
    "100 sockets connecting at once (last hello-ok)",
    "ms",
    "lower",
    async (t) => {
      const count = quick ? 20 : 100;
      const t0 = performance.now();
      const opened = await t.openMany(count, count);
      const wall = performance.now() - t0;
      await closeAll(opened.conns);
      const s = summarize(opened.timing);
      const refused = opened.errors ? `; ${opened.errors} of ${count} refused (${opened.errorSamples[0]})` : "";
      return {
        value: wall,
        errors: opened.errors,
        note: `${count} at once: p50 ${fmt(s.p50)} ms, ${fmt(opened.conns.length / (wall / 1000))} sockets/s${refused}`,
      };
    },
    { floor: true },
  );

  // ── Sessions: create, list, /tools/invoke ──
  const SESSIONS = quick ? 500 : 5000;
  const created = new Map(targets.map((t) => [t, 0]));
  await phase("session create (sessions.patch, 4 in flight)", "ms", "lower", async (t, round) => {
    const conns = await Promise.all([0, 1, 2, 3].map(() => t.open()));
    try {
      const total = n(400);
      const cpu0 = await t.cpu();
      const r = await p50Of(total, 4, (i) =>
        conns[i % 4].call("sessions.patch", {
          key: `agent:main:vs-${runId}-c${round}-${i}`,
          label: `c ${runId} ${round} ${i}`,
        }),
      );
      const cpuMs = ((await t.cpu()) - cpu0) * 1000;
      created.set(t, created.get(t) + r.ok);
      return {
        value: r.p50,
        note: `n=${r.ok}, p99 ${fmt(r.p99)} ms, ${fmt(r.perSecond)} creates/s, server CPU ${fmt(cpuMs / r.ok)} ms/create`,
      };
    } finally {
      await closeAll(conns);
    }
  });

  // Seeding to SESSIONS sessions (setup, not a row).
  for (const t of wanted("sessions.list") ? targets : []) {
    const missing = SESSIONS - created.get(t);
    if (missing <= 0) continue;
    log(`seeding ${missing} sessions — ${t.label}`);
    const conns = await Promise.all(Array.from({ length: 8 }, () => t.open()));
    try {
      await p50Of(missing, 16, (i) =>
        conns[i % 8].call("sessions.patch", { key: `agent:main:vs-${runId}-s-${i}`, label: `seed ${runId} ${i}` }),
      );
    } finally {
      await closeAll(conns);
    }
  }

  await phase(`sessions.list limit 50, ≥${fmt(SESSIONS)} sessions`, "ms", "lower", async (t) => {
    const conn = await t.open();
    try {
      const r = await p50Of(n(60), 1, async () => {
        const payload = await conn.call("sessions.list", { limit: 50 });
        if (payload.sessions?.length !== 50) throw new Error(`got ${payload.sessions?.length} rows`);
      });
      return { value: r.p50, note: `n=${r.ok}` };
    } finally {
      await conn.close();
    }
  });

  // Every row, as a client gets them: one call where the answer holds them all (the real gateway),
  // else page after page by `nextOffset` while `hasMore` (this service answers at most 200 a page).
  await phase(`sessions.list all, ≥${fmt(SESSIONS)} sessions`, "ms", "lower", async (t) => {
    const conn = await t.open();
    let rows = 0;
    let pages = 0;
    try {
      const r = await p50Of(n(20), 1, async () => {
        rows = 0;
        pages = 0;
        for (let offset = 0; offset !== null; pages++) {
          const payload = await conn.call("sessions.list", { limit: 100_000, offset });
          rows += payload.sessions?.length ?? 0;
          offset = payload.hasMore && Number.isInteger(payload.nextOffset) ? payload.nextOffset : null;
        }
        if (rows < SESSIONS) throw new Error(`got ${rows} rows in ${pages} page(s)`);
      });
      return { value: r.p50, note: `n=${r.ok}, ${fmt(rows)} rows in ${pages} page(s)` };
    } finally {
      await conn.close();
    }
  });

  await phase("/tools/invoke sessions_list", "ms", "lower", async (t) => {
    const r = await p50Of(n(100), 1, () =>
      t.http.post("/tools/invoke", { tool: "sessions_list", args: {}, sessionKey: "main" }),
    );
    return { value: r.p50, note: `n=${r.ok}` };
  });

  // ── Turns and injects ──
  await phase("agent turn, same session", "ms", "lower", async (t, round) => {
    const conn = await t.open();
    const key = `agent:main:vs-${runId}-turn-${round}`;
    try {
      await conn.twoPhase("agent", { message: "warm up", sessionKey: key, idempotencyKey: randomUUID() }, 60_000);
      const r = await p50Of(n(30), 1, () =>
        conn.twoPhase("agent", { message: "same session", sessionKey: key, idempotencyKey: randomUUID() }, 60_000),
      );
      return { value: r.p50, note: `n=${r.ok}` };
    } finally {
      await conn.close();
    }
  });

  await phase("agent turn, new session", "ms", "lower", async (t, round) => {
    const conn = await t.open();
    try {
      const r = await p50Of(n(30), 1, (i) =>
        conn.twoPhase(
          "agent",
          {
            message: "new session",
            sessionKey: `agent:main:vs-${runId}-new-${round}-${i}`,
            idempotencyKey: randomUUID(),
          },
          60_000,
        ),
      );
      return { value: r.p50, note: `n=${r.ok}` };
    } finally {
      await conn.close();
    }
  });

  await phase("8 sessions' turns at once", "turns/s", "higher", async (t, round) => {
    const conns = await Promise.all(Array.from({ length: 8 }, () => t.open()));
    try {
      const r = await p50Of(8 * n(40), 8, (i) =>
        conns[i % 8].twoPhase(
          "agent",
          {
            message: `parallel ${i}`,
            sessionKey: `agent:main:vs-${runId}-par-${round}-${i % 8}`,
            idempotencyKey: randomUUID(),
          },
          60_000,
        ),
      );
      return { value: r.perSecond, note: `n=${r.ok}, turn p50 ${fmt(r.p50)} ms` };
    } finally {
      await closeAll(conns);
    }
  });

  await phase("chat.inject one at a time", "ms", "lower", async (t, round) => {
    const conn = await t.open();
    const sessionKey = `agent:main:vs-${runId}-inj-${round}`;
    try {
      await conn.call("chat.inject", { sessionKey, message: "first" }).catch(() => undefined);
      await conn.call("sessions.patch", { key: sessionKey });
      const r = await p50Of(n(200), 1, (i) => conn.call("chat.inject", { sessionKey, message: `inject ${i}` }));
      return { value: r.p50, note: `n=${r.ok}` };
    } finally {
      await conn.close();
    }
  });

  await phase("chat.inject, 8 sockets at once", "ms", "lower", async (t, round) => {
    const conns = await Promise.all(Array.from({ length: 8 }, () => t.open()));
    const key = (i) => `agent:main:vs-${runId}-inj8-${round}-${i % 8}`;
    try {
      await Promise.all(conns.map((c, i) => c.call("sessions.patch", { key: key(i) })));
      const r = await p50Of(8 * n(50), 8, (i) =>
        conns[i % 8].call("chat.inject", { sessionKey: key(i), message: `m ${i}` }),
      );
      return { value: r.p50, note: `n=${r.ok}, ${fmt(r.perSecond)} injects/s` };
    } finally {
      await closeAll(conns);
    }
  });

  // ── History at 10k messages ──
  const MESSAGES = quick ? 1000 : 10_000;
  const historyKey = `agent:main:vs-${runId}-history`;
  for (const t of wanted("history") ? targets : []) {
    log(`seeding ${MESSAGES} messages — ${t.label}`);
    const conns = await Promise.all(Array.from({ length: 8 }, () => t.open()));
    try {
      await conns[0].call("sessions.patch", { key: historyKey });
      await p50Of(MESSAGES, 8, (i) =>
        conns[i % 8].call("chat.inject", { sessionKey: historyKey, message: `history ${i}` }),
      );
    } finally {
      await closeAll(conns);
    }
  }
  await phase(`history limit 50 at ${fmt(MESSAGES)} messages, WS`, "ms", "lower", async (t) => {
    const conn = await t.open();
    try {
      const r = await p50Of(n(100), 1, async () => {
        const payload = await conn.call("chat.history", { sessionKey: historyKey, limit: 50 });
        if (payload.messages?.length !== 50) throw new Error(`got ${payload.messages?.length} messages`);
      });
      return { value: r.p50, note: `n=${r.ok}` };
    } finally {
      await conn.close();
    }
  });
  await phase(`history limit 50 at ${fmt(MESSAGES)} messages, HTTP`, "ms", "lower", async (t) => {
    const r = await p50Of(n(100), 1, async () => {
      const { text } = await t.http.get(`/sessions/${encodeURIComponent(historyKey)}/history?limit=50`);
      const body = JSON.parse(text);
      if (body.messages?.length !== 50) throw new Error(`got ${body.messages?.length} messages`);
    });
    return { value: r.p50, note: `n=${r.ok}` };
  });

  // ── Fan-out to K idle subscribers ──
  for (const k of quick ? [100, 300] : [1000, 5000]) {
    await phase(`fan-out to the last of ${fmt(k)} subscribers`, "ms", "lower", (t, round) => fanOut(t, k, round), {
      rounds: k > 1000 ? 1 : 2,
      floor: true,
    });
  }

  async function fanOut(t, k, round) {
    const key = `agent:main:vs-${runId}-fan-${k}-${round}`;
    const opened = await t.openMany(k, 32);
    const conns = opened.conns;
    const sender = await t.open();
    try {
      if (opened.errors) throw new Error(`${opened.errors} of ${k} sockets failed: ${opened.errorSamples[0]}`);
      await sender.call("sessions.patch", { key });
      await p50Of(conns.length, 64, (i) => conns[i].call("sessions.messages.subscribe", { key }));
      await sleep(2_000); // idle: the subscribers have settled
      const all = [];
      const first = [];
      for (let i = 0; i < n(20); i++) {
        const text = `fan ${k} ${round} ${i} ${randomUUID()}`;
        let got = 0;
        let firstAt;
        const t0 = performance.now();
        const done = new Promise((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`${got}/${conns.length} got it`)), DELIVERY_TIMEOUT_MS);
          const offs = conns.map((c) =>
            c.onEvent((frame) => {
              if (frame.event !== "session.message" || messageText(frame.payload?.message) !== text) return;
              firstAt ??= performance.now() - t0;
              if (++got === conns.length) {
                clearTimeout(timer);
                for (const off of offs) off();
                resolve(performance.now() - t0);
              }
            }),
          );
        });
        await sender.call("chat.inject", { sessionKey: key, message: text });
        all.push(await done);
        first.push(firstAt);
      }
      const s = summarize(all);
      return {
        value: s.p50,
        note: `n=${s.n}, p99 ${fmt(s.p99)} ms, first subscriber p50 ${fmt(summarize(first).p50)} ms; opened at ${fmt(conns.length / opened.seconds)}/s`,
      };
    } finally {
      await closeAll([...conns, sender]);
    }
  }

  const serviceLabel =
    ctx.runtime === "direct" ? "this service in workerd directly" : "this service under wrangler dev";
  printComparison(table, Boolean(A), serviceLabel, log);
  if (F) printFloorTable(table, Boolean(A));
  if (errors) log(`!! ${errors} error(s) in the side-by-side phases`);
  return rows;
}

function printComparison(table, withPeer, serviceLabel, log) {
  const lines = [
    "",
    withPeer
      ? `== versus: real gateway (A) vs ${serviceLabel} (B), one run, alternating ==  (B/A < 1: this service is faster)`
      : `== versus: ${serviceLabel} alone (no real gateway reachable) ==`,
    withPeer ? "| workload | real gateway | this service | B/A |" : "| workload | this service |",
    withPeer ? "| --- | --- | --- | --- |" : "| --- | --- |",
  ];
  for (const row of table) {
    const b = `${fmt(row.b)} ${row.unit}`;
    if (!withPeer) {
      lines.push(`| ${row.workload} | ${b} |`);
      continue;
    }
    const ratio = row.b / row.a;
    const ratioText = row.better === "higher" ? `${fmt(ratio)}× the throughput` : fmt(ratio);
    lines.push(`| ${row.workload} | ${fmt(row.a)} ${row.unit} | ${b} | ${ratioText} |`);
  }
  console.log(lines.join("\n"));
  log("comparison printed");
}

/** The transport and fan-out rows with the runtime floor control beside them (lower bound of this runtime). */
function printFloorTable(table, withPeer) {
  const rows = table.filter((row) => row.f !== undefined);
  if (!rows.length) return;
  const lines = [
    "",
    "== runtime floor: an empty hibernating Durable Object (bench/lib/floor-worker.mjs) in workerd, served as this service is ==",
    withPeer
      ? "| workload | real gateway | this service | runtime floor |"
      : "| workload | this service | runtime floor |",
    withPeer ? "| --- | --- | --- | --- |" : "| --- | --- | --- |",
  ];
  for (const row of rows) {
    const cells = [row.workload, ...(withPeer ? [row.a] : []), row.b, row.f];
    lines.push(`| ${cells.map((v, i) => (i === 0 ? v : `${fmt(v)} ${row.unit}`)).join(" | ")} |`);
  }
  console.log(lines.join("\n"));
}
