// Flood suite: another tenant's latency while one tenant floods run starts (HTTP ingest with
// `run: true`, 50 KB messages), with that tenant's limits lifted and then at a small tenant's
// values (docs/operations.md "Tenant limits"), then the same with 50 B messages: whether the
// refused bodies or the accepted work make the other tenant's tail. Bounded: a fixed number of requests at a fixed
// concurrency, on 127.0.0.1.
import { performance } from "node:perf_hooks";
import { BENCH_LIMITS, benchTenant, setTenantLimits } from "../lib/bench-tenant.mjs";
import { runConcurrent, summarize } from "../lib/measure.mjs";

export const description =
  "flood: another tenant's ingest p50/p99 while one tenant floods run starts: 50 KB with limits lifted and in force, 50 B in force";

const STAMP = Date.now().toString(36);
/** The flood's message: 50 KB; the last phase sends 50 B ones to tell the bodies' cost from the runs'. */
const LARGE_MESSAGE = "x".repeat(50 * 1024);
const SMALL_MESSAGE = "x".repeat(50);
/** Limits high enough to be no limits for this flood (the state before tenant limits). */
const LIFTED = BENCH_LIMITS;
/** The flooding tenant's limits in the bounded phase: a small tenant's share. */
const BOUNDED = { runsInFlight: 8, runsQueued: 32, runStartsPerMinute: 120 };

export async function run(ctx) {
  const { baseUrl, log, signal } = ctx;
  const floodTotal = ctx.quick ? 80 : 400;
  const probes = ctx.quick ? 40 : 150;
  const rows = [];
  const quiet = await benchTenant(baseUrl, signal, `bench-quiet-${STAMP}`);
  let probeCount = 0;
  /** One small message into the quiet tenant's session (no run): its session object and tenant index. */
  const probe = async () => {
    const t0 = performance.now();
    await quiet.client.post(
      `/v1/sessions/probe-${probeCount++ % 20}/messages`,
      { role: "user", content: "probe" },
      { expect: 201 },
    );
    return performance.now() - t0;
  };
  const probeSeries = async (until) => {
    const samples = [];
    while (samples.length < probes && !until()) samples.push(await probe());
    return summarize(samples);
  };
  for (let i = 0; i < 10; i++) await probe();
  const baseline = await probeSeries(() => false);
  rows.push({ name: "other tenant, quiet: p50", value: baseline.p50, unit: "ms", note: `${baseline.n} probes` });
  rows.push({ name: "other tenant, quiet: p99", value: baseline.p99, unit: "ms" });

  for (const [phase, limits, message] of [
    ["limits lifted", LIFTED, LARGE_MESSAGE],
    ["limits in force", BOUNDED, LARGE_MESSAGE],
    ["limits in force, 50 B bodies", BOUNDED, SMALL_MESSAGE],
  ]) {
    const id = `bench-flood-${rows.length}-${STAMP}`;
    const flooder = await benchTenant(baseUrl, signal, id);
    await setTenantLimits(baseUrl, id, limits, signal);
    let refused = 0;
    let done = false;
    const flood = runConcurrent({
      concurrency: 50,
      total: floodTotal,
      maxSeconds: 120,
      signal,
      task: async (i) => {
        try {
          await flooder.client.post(
            `/v1/sessions/flood-${i}/messages`,
            { role: "user", content: message, run: true },
            { expect: 201 },
          );
        } catch (error) {
          if (error.status !== 429) throw error;
          refused++;
        }
      },
    }).finally(() => {
      done = true;
    });
    const during = await probeSeries(() => done);
    const result = await flood;
    if (result.errors) log(`!! flood (${phase}): ${result.errors} errors ${JSON.stringify(result.errorKinds)}`);
    rows.push({
      name: `other tenant, flood with ${phase}: p50`,
      value: during.p50,
      unit: "ms",
      note: `${during.n} probes during ${floodTotal} starts at 50 in parallel`,
      errors: result.errors,
    });
    rows.push({ name: `other tenant, flood with ${phase}: p99`, value: during.p99, unit: "ms" });
    rows.push({
      name: `flood with ${phase}: starts accepted`,
      value: result.ok - refused,
      unit: "runs",
      note: `of ${floodTotal}, ${message.length} B messages`,
    });
    // What the limits refuse is what this phase measures: a count, not an error of the run.
    rows.push({
      name: `flood with ${phase}: starts refused (429, expected)`,
      value: refused,
      unit: "refusals",
      note: JSON.stringify(limits === LIFTED ? { runStartsPerMinute: limits.runStartsPerMinute } : limits),
    });
  }
  return rows;
}
