// Bounded load generation, latency statistics and table printing.
import { performance } from "node:perf_hooks";

/** Nearest-rank percentile of an ascending array (p in 0..100); NaN when empty. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

/** Summary of latency samples in ms: { n, min, mean, p50, p90, p99, max }. */
export function summarize(samples) {
  const sorted = Float64Array.from(samples).sort();
  const n = sorted.length;
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    n,
    min: n ? sorted[0] : Number.NaN,
    mean: n ? sum / n : Number.NaN,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: n ? sorted[n - 1] : Number.NaN,
  };
}

/**
 * Runs `task(i)` for i = 0 .. total-1 with at most `concurrency` in flight.
 * A task fails by throwing; failures are counted, never retried. Latency is measured around
 * every task (successes only go into the percentiles). `maxSeconds` bounds the wall time:
 * no new task starts after it (the result then says `timedOut: true` and `count < total`).
 * An aborted `signal` also stops new tasks (`aborted: true`).
 * Returns { count, ok, errors, seconds, perSecond, p50, p99, max, mean, timedOut, aborted,
 *   errorKinds: { "HTTP 500": n, ECONNREFUSED: n, … }, errorSamples: first 5 messages }
 * with latencies in ms and perSecond = successful tasks per second.
 */
export async function runConcurrent({ concurrency, total, task, maxSeconds = 120, signal }) {
  if (!(concurrency >= 1) || !(total >= 0)) throw new Error("runConcurrent: bad concurrency/total");
  const latencies = [];
  const errorSamples = [];
  const errorKinds = {};
  let errors = 0;
  let next = 0;
  let started = 0;
  let timedOut = false;
  const t0 = performance.now();
  const deadline = t0 + maxSeconds * 1000;

  async function worker() {
    while (next < total) {
      if (signal?.aborted) return;
      if (performance.now() > deadline) {
        timedOut = true;
        return;
      }
      const i = next++;
      started++;
      const s = performance.now();
      try {
        await task(i);
        latencies.push(performance.now() - s);
      } catch (error) {
        errors++;
        const kind = error?.status !== undefined ? `HTTP ${error.status}` : (error?.kind ?? error?.name ?? "error");
        errorKinds[kind] = (errorKinds[kind] ?? 0) + 1;
        if (errorSamples.length < 5) errorSamples.push(String(error?.message ?? error));
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(total, 1)) }, worker));
  const seconds = (performance.now() - t0) / 1000;
  const stats = summarize(latencies);
  return {
    count: started,
    ok: latencies.length,
    errors,
    seconds,
    perSecond: seconds > 0 ? latencies.length / seconds : Number.NaN,
    p50: stats.p50,
    p99: stats.p99,
    max: stats.max,
    mean: stats.mean,
    timedOut,
    aborted: Boolean(signal?.aborted),
    errorKinds,
    errorSamples,
  };
}

/**
 * Full speed for `seconds`: `window` loops each running `step()` back to back until the time is
 * up (a step started before the end still finishes). Answers how many steps ran and the seconds.
 */
export async function fullSpeed({ window, seconds, step, signal }) {
  const t0 = performance.now();
  const until = t0 + seconds * 1000;
  let steps = 0;
  await Promise.all(
    Array.from({ length: window }, async () => {
      while (performance.now() < until) {
        signal?.throwIfAborted();
        await step();
        steps++;
      }
    }),
  );
  return { steps, seconds: (performance.now() - t0) / 1000 };
}

/** Runs `task(i)` sequentially `total` times; same result shape as runConcurrent. */
export function runSequential({ total, task, maxSeconds = 120, signal }) {
  return runConcurrent({ concurrency: 1, total, task, maxSeconds, signal });
}

/** Formats a number for a table: integers with separators, else 3 significant decimals. */
export function fmt(value) {
  if (typeof value !== "number") return String(value ?? "");
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  if (Number.isInteger(value) || abs >= 1000) return Math.round(value).toLocaleString("en-US");
  if (abs >= 100) return value.toFixed(1);
  if (abs >= 10) return value.toFixed(2);
  return value.toFixed(3);
}

/**
 * Prints rows `{ name, value, unit, note?, errors? }` as an aligned table (value right-aligned).
 * Rows with errors get a marker in the first column.
 */
export function printTable(title, rows, out = console.log) {
  const cells = rows.map((r) => [
    `${r.errors ? "!! " : ""}${r.name}`,
    fmt(r.value),
    r.unit ?? "",
    [r.errors ? `${r.errors} ERRORS` : "", r.note ?? ""].filter(Boolean).join("; "),
  ]);
  const header = ["metric", "value", "unit", "note"];
  const widths = header.map((h, c) => Math.max(h.length, ...cells.map((row) => row[c].length)));
  const line = (row) =>
    row
      .map((cell, c) => (c === 1 ? cell.padStart(widths[c]) : cell.padEnd(widths[c])))
      .join("  ")
      .trimEnd();
  out(`\n== ${title} ==`);
  out(line(header));
  out(widths.map((w) => "-".repeat(w)).join("  "));
  for (const row of cells) out(line(row));
}

/**
 * `warmups` fully validated requests, then `reps` sequential timed requests. Only the request
 * (status check and body read) is timed; every body is validated after the clock stops
 * (cheaply: a body of the warm-up length passes, any other is parsed and checked).
 */
export async function measureRequests({ signal }, { reps, warmups = 3, request, validate, maxSeconds = 90 }) {
  const latencies = [];
  const errorSamples = [];
  let errors = 0;
  let bytes = 0;
  let knownLength = -1;
  const deadline = performance.now() + maxSeconds * 1000;
  let timedOut = false;
  for (let i = 0; i < warmups + reps; i++) {
    signal?.throwIfAborted();
    if (performance.now() > deadline) {
      timedOut = true;
      break;
    }
    const t0 = performance.now();
    try {
      const { text } = await request();
      const ms = performance.now() - t0;
      if (i < warmups || text.length !== knownLength) validate(text);
      if (i < warmups) {
        knownLength = text.length;
        continue;
      }
      latencies.push(ms);
      bytes = text.length;
    } catch (error) {
      errors++;
      if (errorSamples.length < 5) errorSamples.push(String(error?.message ?? error));
    }
  }
  if (timedOut) {
    errors++;
    errorSamples.push(`timed out after ${maxSeconds} s with ${latencies.length} of ${reps} requests`);
  }
  const stats = summarize(latencies);
  return { ...stats, ok: latencies.length, errors, errorSamples, bytes };
}

export function reportErrors(log, name, result) {
  if (!result.errors) return;
  log(`!! ${name}: ${result.errors} errors${result.errorKinds ? ` ${JSON.stringify(result.errorKinds)}` : ""}`);
  for (const sample of result.errorSamples ?? []) log(`   e.g. ${sample}`);
}
