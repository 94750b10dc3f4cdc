// Registry suite: listing sessions (tool sessions_list and GET /v1/sessions) as the tenant grows.
import { measureRequests as measure, reportErrors, runConcurrent } from "../lib/measure.mjs";

export const description =
  "registry: sessions_list and GET /v1/sessions at 100 / 1k / 10k sessions, messageLimit, full list of 1k";

const CREATE_CONCURRENCY = 16;
const sessionPath = (key) => `/v1/sessions/${encodeURIComponent(key)}`;
const seedKey = (i) => `agent:main:reg-${i}`;

export async function run(ctx) {
  const { client, log, signal } = ctx;
  const quick = ctx.quick;
  const n = (count) => Math.max(1, Math.round(count * (quick ? 0.1 : 1)));
  const levels = quick ? [100, 1000] : [100, 1000, 10_000];
  const reps = n(100);
  const rows = [];

  // Visibility "all" so the main session sees every session; a rate limit that never bites.
  await configure(client);

  let total = await countSessions(client);
  log(`tenant holds ${total} sessions before seeding`);
  let nextIndex = 0;
  const p50 = new Map(); // `${label}@${level}` → p50

  for (const level of levels) {
    signal?.throwIfAborted();
    // 1. Top up to `level` sessions, one appended message each (a new session object per key).
    const missing = level - total;
    if (missing > 0) {
      const first = nextIndex;
      log(`creating ${missing} sessions (→ ${level}) at c=${CREATE_CONCURRENCY}`);
      const progress = setInterval(() => log(`  … ${nextIndex - first}/${missing} started`), 15_000);
      let result;
      try {
        result = await runConcurrent({
          signal,
          concurrency: CREATE_CONCURRENCY,
          total: missing,
          // A bound, not a target: at load 19 on 2 cores creates ran at 6/s (1k sessions ≈ 160 s).
          maxSeconds: 240,
          task: async (i) => {
            nextIndex = Math.max(nextIndex, first + i + 1);
            const { text } = await client.post(
              `${sessionPath(seedKey(first + i))}/messages`,
              { role: "user", content: `registry seed ${first + i}` },
              { expect: 201 },
            );
            const body = JSON.parse(text);
            if (body.sessionKey !== undefined && body.sessionKey !== seedKey(first + i))
              throw new Error(`append answered sessionKey ${body.sessionKey}`);
          },
        });
      } finally {
        clearInterval(progress);
      }
      nextIndex = first + missing;
      reportErrors(log, `create → ${level}`, result);
      rows.push({
        name: `create sessions → ${label(level)}`,
        value: result.perSecond,
        unit: "sessions/s",
        note: `${result.ok} new sessions in ${result.seconds.toFixed(1)} s, c=${CREATE_CONCURRENCY}, append p50 ${result.p50.toFixed(1)} ms / p99 ${result.p99.toFixed(1)} ms${result.timedOut ? "; TIMED OUT" : ""}`,
        errors: result.errors + (result.timedOut ? 1 : 0),
      });
    }
    total = await countSessions(client);
    if (total !== level) log(`!! tenant holds ${total} sessions, expected ${level}`);
    const levelNote = total === level ? "" : `; tenant held ${total} sessions, not ${level}`;

    // 2. Limit 50 and 200, for the tool and the operator route.
    for (const limit of [50, 200]) {
      const expected = Math.min(limit, total);
      const tool = await measure(ctx, {
        reps,
        request: () => client.post("/tools/invoke", { tool: "sessions_list", args: { limit } }),
        validate: (body) => checkToolList(body, expected),
      });
      const route = await measure(ctx, {
        reps,
        request: () => client.get(`/v1/sessions?limit=${limit}`),
        validate: (body) => checkRouteList(body, expected),
      });
      for (const [name, result] of [
        [`sessions_list limit ${limit} @${label(level)}`, tool],
        [`GET /v1/sessions?limit=${limit} @${label(level)}`, route],
      ]) {
        reportErrors(log, name, result);
        rows.push({
          name: `${name} p50`,
          value: result.p50,
          unit: "ms",
          note: `n=${result.ok} sequential, ${(result.bytes / 1024).toFixed(1)} KiB${levelNote}`,
          errors: result.errors,
        });
        rows.push({ name: `${name} p99`, value: result.p99, unit: "ms", note: `max ${result.max.toFixed(1)} ms` });
        if (!result.errors) p50.set(`${name.split(" @")[0]}@${level}`, result.p50);
      }
    }

    if (level === 1000) {
      // 3. sessions_list with the last 5 messages of each row (50 session objects read per call).
      const withMessages = await measure(ctx, {
        reps: n(50),
        request: () => client.post("/tools/invoke", { tool: "sessions_list", args: { limit: 50, messageLimit: 5 } }),
        validate: (body) => checkToolList(body, Math.min(50, total), { withMessages: true }),
      });
      reportErrors(log, "sessions_list messageLimit 5", withMessages);
      rows.push({
        name: "sessions_list limit 50 messageLimit 5 @1k p50",
        value: withMessages.p50,
        unit: "ms",
        note: `n=${withMessages.ok} sequential, ${(withMessages.bytes / 1024).toFixed(1)} KiB${levelNote}`,
        errors: withMessages.errors,
      });
      rows.push({
        name: "sessions_list limit 50 messageLimit 5 @1k p99",
        value: withMessages.p99,
        unit: "ms",
        note: `max ${withMessages.max.toFixed(1)} ms`,
      });

      // 4. The full list of 1,000 rows (OpenClaw: 103 ms median, 1.1 MB).
      const full = await measure(ctx, {
        reps: n(30),
        request: () => client.get("/v1/sessions?limit=1000"),
        validate: (body) => checkRouteList(body, Math.min(1000, total, MAX_PAGE)),
      });
      reportErrors(log, "full list 1k", full);
      rows.push({
        name: "GET /v1/sessions?limit=1000 @1k p50",
        value: full.p50,
        unit: "ms",
        note: `n=${full.ok} sequential, ${(full.bytes / 1e6).toFixed(2)} MB; OpenClaw sessions.list 1k: 103 ms, 1.1 MB${levelNote}`,
        errors: full.errors,
      });
      rows.push({
        name: "GET /v1/sessions?limit=1000 @1k p99",
        value: full.p99,
        unit: "ms",
        note: `max ${full.max.toFixed(1)} ms`,
      });
    }

    if (level === 10_000) {
      // 5. The full list of 10,000 rows, a few times (how the unbounded read scales).
      const full = await measure(ctx, {
        reps: 5,
        warmups: 1,
        request: () => client.get("/v1/sessions?limit=10000", { timeoutMs: 60_000 }),
        validate: (body) => checkRouteList(body, Math.min(10_000, total, MAX_PAGE)),
      });
      reportErrors(log, "full list 10k", full);
      rows.push({
        name: "GET /v1/sessions?limit=10000 @10k p50",
        value: full.p50,
        unit: "ms",
        note: `n=${full.ok} sequential, ${(full.bytes / 1e6).toFixed(2)} MB, max ${full.max.toFixed(1)} ms; OpenClaw 5k: 299 ms${levelNote}`,
        errors: full.errors,
      });
    }
  }

  // 6. Growth ratio: limit-50 reads at the largest vs the smallest tenant (target ≤ 2).
  const [small, large] = [levels[0], levels.at(-1)];
  for (const name of ["sessions_list limit 50", "GET /v1/sessions?limit=50"]) {
    const a = p50.get(`${name}@${small}`);
    const b = p50.get(`${name}@${large}`);
    const ratio = a && b ? b / a : Number.NaN;
    const verdict = Number.isFinite(ratio) ? (ratio <= 2 ? "target ≤ 2 met" : "TARGET ≤ 2 MISSED") : "not measured";
    rows.push({
      name: `${name} p50 ${label(large)} / ${label(small)}`,
      value: ratio,
      unit: "ratio",
      note: verdict,
      ...(Number.isFinite(ratio) ? {} : { errors: 1 }),
    });
    log(
      `${name}: p50 @${label(large)} / p50 @${label(small)} = ${Number.isFinite(ratio) ? ratio.toFixed(2) : "n/a"} (${verdict})`,
    );
  }
  return rows;
}

/** Merges the suite's settings into the tenant config (PUT replaces it whole). */
async function configure(client) {
  const { text } = await client.get("/v1/config");
  const current = JSON.parse(text).config ?? {};
  const config = {
    ...current,
    tools: { ...current.tools, sessions: { ...current.tools?.sessions, visibility: "all" } },
    rateLimit: { ...current.rateLimit, toolsPerMinute: 1_000_000 },
  };
  const { text: stored } = await client.request("PUT", "/v1/config", { body: config });
  const parsed = JSON.parse(stored);
  if (parsed.config?.tools?.sessions?.visibility !== "all" || parsed.config?.rateLimit?.toolsPerMinute !== 1_000_000) {
    throw new Error(`PUT /v1/config did not keep the settings: ${stored.slice(0, 300)}`);
  }
}

/** Sessions the operator list shows, page by page (pages hold at most 200 rows). */
export async function countSessions(client) {
  let count = 0;
  for (let offset = 0; offset !== null; ) {
    const { text } = await client.get(`/v1/sessions?limit=200&offset=${offset}`, { timeoutMs: 60_000 });
    const body = JSON.parse(text);
    if (!Array.isArray(body.sessions) || body.count !== body.sessions.length)
      throw new Error(`GET /v1/sessions: unexpected body ${text.slice(0, 200)}`);
    count += body.count;
    offset = body.hasMore ? body.nextOffset : null;
  }
  return count;
}

/** sessions.list serves pages of at most this many rows (src/domain/session-index.ts). */
const MAX_PAGE = 200;

function checkToolList(text, expected, { withMessages = false } = {}) {
  const body = JSON.parse(text);
  if (body.ok !== true) throw new Error(`tools/invoke answered ${text.slice(0, 200)}`);
  const details = body.result?.details;
  if (!details || details.count !== expected || details.sessions?.length !== expected) {
    throw new Error(`sessions_list: count ${details?.count}, ${details?.sessions?.length} rows; expected ${expected}`);
  }
  if (withMessages) {
    const bad = details.sessions.filter(
      (s) => !Array.isArray(s.messages) || s.messages.length < 1 || s.messages.length > 5,
    );
    if (bad.length)
      throw new Error(
        `sessions_list messageLimit 5: ${bad.length} rows without 1..5 messages (e.g. ${JSON.stringify(bad[0]).slice(0, 200)})`,
      );
  }
}

function checkRouteList(text, expected) {
  const body = JSON.parse(text);
  if (body.count !== expected || body.sessions?.length !== expected) {
    throw new Error(`GET /v1/sessions: count ${body.count}, ${body.sessions?.length} rows; expected ${expected}`);
  }
}

function label(n) {
  if (n >= 1000 && n % 1000 === 0) return `${n / 1000}k`;
  return String(n);
}
