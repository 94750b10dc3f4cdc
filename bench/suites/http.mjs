// HTTP suite: the empty-route ceiling, message appends, and history last pages vs transcript length.
import { performance } from "node:perf_hooks";
import { runConcurrent, runSequential } from "../lib/measure.mjs";

export const description =
  "HTTP: /health ceiling, appends (1 and 16 sessions), history last page at 100 / 10k / 100k messages";

const CONCURRENCY = 16;
const BATCH = 1000; // the batch route's maximum
const HISTORY_LIMIT = 50;

/** `len` printable chars, deterministic per `i`. */
function text(i, len) {
  const base = `bench message ${i}: the quick brown fox jumps over the lazy dog while a session keeps growing. `;
  return base.repeat(Math.ceil(len / base.length)).slice(0, len);
}

/** A seeded message whose JSON is about 200 bytes (user and assistant alternate). */
function seedMessage(i) {
  return { role: i % 2 === 0 ? "user" : "assistant", content: text(i, 165) };
}

const sessionPath = (key) => `/v1/sessions/${encodeURIComponent(key)}`;

export async function run(ctx) {
  const { client, log, signal } = ctx;
  const scale = ctx.quick ? 0.1 : 1;
  const n = (count) => Math.max(1, Math.round(count * scale));
  const rows = [];

  /** Adds the standard rows of one load run; returns the result. */
  const loadRows = (label, result, note) => {
    if (result.errors || result.timedOut) {
      log(
        `!! ${label}: ${result.errors} errors of ${result.count} ${JSON.stringify(result.errorKinds)}${result.timedOut ? ", stopped at time limit" : ""}`,
      );
      for (const sample of result.errorSamples) log(`   e.g. ${sample}`);
    }
    const errors = result.errors + (result.timedOut ? 1 : 0);
    const extra = result.timedOut ? `; TIMED OUT after ${result.count}` : "";
    rows.push({ name: `${label} throughput`, value: result.perSecond, unit: "req/s", note: `${note}${extra}`, errors });
    rows.push({ name: `${label} p50`, value: result.p50, unit: "ms" });
    rows.push({ name: `${label} p99`, value: result.p99, unit: "ms", note: `max ${result.max.toFixed(1)} ms` });
    return result;
  };

  // 1. Ceiling: the empty route, no auth, no Durable Object.
  const healthTotal = n(4000);
  const health = async () => {
    await client.get("/health", { auth: false, expect: 200 });
  };
  log("ceiling: warm-up");
  await runConcurrent({ signal, concurrency: CONCURRENCY, total: n(200), task: health });
  log(`ceiling: GET /health x${healthTotal} at c=${CONCURRENCY}`);
  const ceiling = loadRows(
    "ceiling GET /health",
    await runConcurrent({ signal, concurrency: CONCURRENCY, total: healthTotal, task: health }),
    `c=${CONCURRENCY}, n=${healthTotal}`,
  );

  // 2. Appends: one session (one Durable Object) and 16 sessions.
  const appendTotal = n(4000);
  const appendTo = (keyOf) => async (i) => {
    await client.post(`${sessionPath(keyOf(i))}/messages`, { role: "user", content: text(i, 200) }, { expect: 201 });
  };
  const single = appendTo(() => "bench-append");
  log("append (1 session): warm-up");
  await runConcurrent({ signal, concurrency: CONCURRENCY, total: n(200), task: single });
  log(`append (1 session): x${appendTotal} at c=${CONCURRENCY}`);
  const app1 = loadRows(
    "append 1 session",
    await runConcurrent({ signal, concurrency: CONCURRENCY, total: appendTotal, task: single }),
    `c=${CONCURRENCY}, n=${appendTotal}, POST /v1/sessions/bench-append/messages`,
  );
  rows.push({
    name: "append 1 session / ceiling",
    value: app1.perSecond / ceiling.perSecond,
    unit: "ratio",
    note: "throughput ratio",
  });

  const spread = appendTo((i) => `bench-append-${i % 16}`);
  log("append (16 sessions): warm-up");
  await runConcurrent({ signal, concurrency: CONCURRENCY, total: n(200), task: spread });
  log(`append (16 sessions): x${appendTotal} at c=${CONCURRENCY}`);
  const app16 = loadRows(
    "append 16 sessions",
    await runConcurrent({ signal, concurrency: CONCURRENCY, total: appendTotal, task: spread }),
    `c=${CONCURRENCY}, n=${appendTotal}, keys bench-append-0..15 round-robin`,
  );
  rows.push({
    name: "append 16 sessions / ceiling",
    value: app16.perSecond / ceiling.perSecond,
    unit: "ratio",
    note: "throughput ratio",
  });

  // 3. History last page vs transcript length.
  const sizes = [100, 10_000, 100_000].map((s) => (ctx.quick ? Math.max(100, s / 10) : s));
  const p50BySize = new Map();
  let seededTotal = 0;
  let seedSeconds = 0;
  for (const size of sizes) {
    signal?.throwIfAborted();
    const key = `bench-history-${size}`;
    const seeded = await seed(ctx, key, size);
    seededTotal += seeded.messages;
    seedSeconds += seeded.seconds;
    rows.push({
      name: `seed ${label(size)} msgs`,
      value: seeded.messages / seeded.seconds,
      unit: "msg/s",
      note: `${seeded.batches} batches of <=${BATCH}, ${(seeded.bytes / 1e6).toFixed(1)} MB in ${seeded.seconds.toFixed(1)} s`,
      errors: seeded.errors,
    });
    if (seeded.errors) {
      log(`!! seeding ${key} failed; skipping its history timing`);
      continue;
    }

    const expectCount = Math.min(HISTORY_LIMIT, size);
    const path = `/sessions/${encodeURIComponent(key)}/history?limit=${HISTORY_LIMIT}`;
    // Warm-up requests are fully validated; timed requests are checked by status and body length.
    let expectedLength = -1;
    const warm = await runSequential({
      signal,
      total: 10,
      task: async () => {
        const { text: body } = await client.get(path, { expect: 200 });
        const page = JSON.parse(body);
        const list = page.messages ?? [];
        const lastSeq = list.at(-1)?.__openclaw?.seq;
        if (list.length !== expectCount || lastSeq !== size || page.hasMore !== size > HISTORY_LIMIT) {
          throw new Error(
            `history ${key}: got ${list.length} messages, last seq ${lastSeq}, hasMore ${page.hasMore}; expected ${expectCount}, ${size}, ${size > HISTORY_LIMIT}`,
          );
        }
        expectedLength = body.length;
      },
    });
    const historyTotal = n(200);
    log(`history ${key}: GET ?limit=${HISTORY_LIMIT} x${historyTotal} sequential`);
    const result = await runSequential({
      signal,
      total: historyTotal,
      task: async () => {
        const { text: body } = await client.get(path, { expect: 200 });
        if (body.length !== expectedLength)
          throw new Error(`history ${key}: body length ${body.length}, expected ${expectedLength}`);
      },
    });
    if (warm.errors) {
      log(`!! history ${key} validation failed: ${warm.errorSamples[0]}`);
      result.errors += warm.errors;
      result.errorSamples.unshift(...warm.errorSamples);
    }
    if (result.errors) for (const sample of result.errorSamples) log(`   e.g. ${sample}`);
    const note = `n=${historyTotal} sequential, ${(expectedLength / 1024).toFixed(1)} KiB/page`;
    rows.push({ name: `history ${label(size)} p50`, value: result.p50, unit: "ms", note, errors: result.errors });
    rows.push({
      name: `history ${label(size)} p99`,
      value: result.p99,
      unit: "ms",
      note: `max ${result.max.toFixed(1)} ms`,
    });
    if (!result.errors) p50BySize.set(size, result.p50);
  }
  rows.push({
    name: "seed overall",
    value: seededTotal / seedSeconds,
    unit: "msg/s",
    note: `${label(seededTotal)} msgs`,
  });
  const [small, , large] = sizes;
  if (p50BySize.has(small) && p50BySize.has(large)) {
    rows.push({
      name: `history p50 ${label(large)} / ${label(small)}`,
      value: p50BySize.get(large) / p50BySize.get(small),
      unit: "ratio",
      note: "~1 means last-page reads do not grow with transcript length",
    });
  } else {
    rows.push({
      name: `history p50 ${label(large)} / ${label(small)}`,
      value: Number.NaN,
      unit: "ratio",
      note: "not measured",
      errors: 1,
    });
  }
  return rows;
}

/** Appends `size` messages to `key` through the batch route, sequentially, checking every answer. */
async function seed({ client, log, signal }, key, size) {
  log(`seed ${key}: ${size} messages in batches of ${BATCH}`);
  let done = 0;
  let batches = 0;
  let bytes = 0;
  let errors = 0;
  const t0 = performance.now();
  const deadline = t0 + 150_000;
  while (done < size) {
    signal?.throwIfAborted();
    if (performance.now() > deadline) {
      log(`!! seed ${key}: time limit reached after ${done} messages`);
      errors++;
      break;
    }
    const count = Math.min(BATCH, size - done);
    const body = JSON.stringify({ messages: Array.from({ length: count }, (_, j) => seedMessage(done + j)) });
    bytes += body.length;
    try {
      const { text: answer } = await client.post(`${sessionPath(key)}/messages/batch`, body, {
        expect: 201,
        timeoutMs: 60_000,
      });
      const result = JSON.parse(answer);
      if (result.count !== count || result.lastSeq !== done + count) {
        throw new Error(`batch answer ${answer.slice(0, 200)}; expected count ${count}, lastSeq ${done + count}`);
      }
    } catch (error) {
      log(`!! seed ${key}: ${error.message}`);
      errors++;
      break;
    }
    done += count;
    batches++;
  }
  return { messages: done, batches, bytes, errors, seconds: (performance.now() - t0) / 1000 };
}

function label(n) {
  if (n >= 1000 && n % 1000 === 0) return `${n / 1000}k`;
  return String(n);
}
