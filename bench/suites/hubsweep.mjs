// The hub threshold sweep (docs/benchmarks.md, "Hub threshold"): the fan-out of `versus` (K idle
// subscribers following one session, a sender's `chat.inject`, the time to the last subscriber's
// session.message) with several GATEWAY_HUB_SOCKETS at once. One service per threshold, all
// running side by side (the bundle built once); the injects go to them in turn, one at a time
// (the order reversed every round), so the machine's drift and the other load on it fall on
// every threshold alike. Per threshold: the last and the first subscriber (p50), the workerd CPU
// per inject. Locally every object of one workerd shares one thread (the hubs cannot run in
// parallel here as on Cloudflare): what this shows is what the hops cost, not the split's gain.
import { randomUUID } from "node:crypto";
import { rm } from "node:fs/promises";
import { performance } from "node:perf_hooks";
import { closeAll, GatewayConn, gatewayUrl, messageText, openMany } from "../lib/gateway.mjs";
import { fmt, percentile } from "../lib/measure.mjs";
import { cpuSeconds, fdLimit, openFds, workerdPids } from "../lib/procs.mjs";
import { bundleWorker, startServer } from "../lib/server.mjs";

export const description =
  "hubsweep: fan-out to the last of K subscribers at several GATEWAY_HUB_SOCKETS side by side (injects interleaved)";

/** The versus suite's client (OpenClaw's backend identity, every operator scope). */
const CLIENT = { id: "gateway-client", version: "0.1.0", platform: "linux", mode: "backend" };
const SCOPES = ["operator.admin", "operator.read", "operator.write"];
const DELIVERY_TIMEOUT_MS = 30_000;
/** Between injects: the previous one's last frames and CPU have settled. */
const SETTLE_MS = 30;

export async function run(ctx) {
  const { log, signal, quick } = ctx;
  const cwd = ctx.repoRoot ?? process.cwd();
  // Three services of 5,000 hold 15,000 sockets in this client (the fd limit here is 20,000).
  const sweeps = quick
    ? [{ k: 200, capacities: [50, 100, 400], injects: 10 }]
    : [
        { k: 1000, capacities: [250, 500, 1000, 2000], injects: 40 },
        { k: 5000, capacities: [250, 500, 1000], injects: 12 },
      ];
  const built = await bundleWorker({ cwd, log });
  const rows = [];
  try {
    for (const { k, capacities, injects } of sweeps) {
      const room = (await fdLimit()).soft - (await openFds()) - 256;
      if (k * capacities.length > room) {
        log(`!! ${fmt(k)} subscribers × ${capacities.length}: the fd limit leaves room for ${room} sockets; skipped`);
        continue;
      }
      const results = await sweep({ cwd, bundle: built.script, k, capacities, injects, signal, log });
      for (const r of results) {
        rows.push({
          name: `${fmt(k)} subscribers, GATEWAY_HUB_SOCKETS ${r.capacity}: fan-out to the last`,
          value: r.last.p50,
          unit: "ms",
          note: `p25–p75 ${fmt(r.last.p25)}–${fmt(r.last.p75)} ms; first subscriber p50 ${fmt(r.first.p50)} ms; workerd CPU ${fmt(r.cpuMs)} ms per inject; ${injects} injects`,
        });
      }
    }
  } finally {
    await rm(built.dir, { recursive: true, force: true }).catch(() => {});
  }
  return rows;
}

async function sweep({ cwd, bundle, k, capacities, injects, signal, log }) {
  const sides = [];
  try {
    for (const capacity of capacities) {
      const server = await startServer({
        cwd,
        runtime: "direct",
        bundle,
        vars: { GATEWAY_HUB_SOCKETS: String(capacity) },
        log,
      });
      const side = { capacity, server, conns: [], last: [], first: [], cpu: 0 };
      sides.push(side);
      const url = gatewayUrl(server.baseUrl);
      const connect = { client: CLIENT, scopes: SCOPES };
      const opened = await openMany(url, { count: k, concurrency: 32, signal, maxSeconds: 300, connect });
      side.conns = opened.conns;
      if (opened.errors) throw new Error(`${opened.errors} of ${k} sockets failed: ${opened.errorSamples[0]}`);
      side.sender = await GatewayConn.open(url, connect);
      side.key = `agent:main:sweep-${randomUUID().slice(0, 8)}`;
      await side.sender.call("sessions.patch", { key: side.key });
      let next = 0;
      await Promise.all(
        Array.from({ length: 64 }, async () => {
          while (next < side.conns.length)
            await side.conns[next++].call("sessions.messages.subscribe", { key: side.key });
        }),
      );
      side.workerd = await workerdPids(server.pid);
      log(`${fmt(k)} subscribers at GATEWAY_HUB_SOCKETS ${capacity}: ready`);
    }
    await new Promise((r) => setTimeout(r, 2_000)); // idle: the subscribers have settled
    for (let i = 0; i < injects; i++) {
      for (const side of i % 2 === 0 ? sides : [...sides].reverse()) {
        signal?.throwIfAborted();
        const cpu0 = await cpuSeconds(side.workerd);
        const { last, first } = await fanOut(side, `sweep ${i} ${randomUUID()}`);
        side.last.push(last);
        side.first.push(first);
        await new Promise((r) => setTimeout(r, SETTLE_MS));
        side.cpu += (await cpuSeconds(side.workerd)) - cpu0;
      }
    }
    return sides.map((s) => ({
      capacity: s.capacity,
      last: quartiles(s.last),
      first: quartiles(s.first),
      cpuMs: (s.cpu * 1000) / injects,
    }));
  } finally {
    for (const side of sides) {
      await closeAll([...side.conns, ...(side.sender ? [side.sender] : [])]);
      await side.server.stop();
    }
  }
}

function quartiles(samples) {
  const sorted = Float64Array.from(samples).sort();
  return { p25: percentile(sorted, 25), p50: percentile(sorted, 50), p75: percentile(sorted, 75) };
}

/** One inject: the time to the first and to the last subscriber's session.message. */
async function fanOut(side, text) {
  const k = side.conns.length;
  let got = 0;
  let first;
  const t0 = performance.now();
  const done = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${got} of ${k} got it`)), DELIVERY_TIMEOUT_MS);
    const offs = side.conns.map((c) =>
      c.onEvent((frame) => {
        if (frame.event !== "session.message" || messageText(frame.payload?.message) !== text) return;
        first ??= performance.now() - t0;
        if (++got === k) {
          clearTimeout(timer);
          for (const off of offs) off();
          resolve(performance.now() - t0);
        }
      }),
    );
  });
  await side.sender.call("chat.inject", { sessionKey: side.key, message: text });
  return { last: await done, first };
}
