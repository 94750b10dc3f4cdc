// List suite: sessions.list (GET /v1/sessions, the same code as the gateway method) as the
// session index grows: the first page and the deepest page, reached by walking nextOffset
// (continued) or by jumping to an offset no page ended at; a search that matches almost
// nothing; a request for the whole list. Sessions are created by PATCH (index rows of the
// tenant object only: no session objects), so 50k stay affordable.
import { performance } from "node:perf_hooks";
import { measureRequests, reportErrors, runConcurrent } from "../lib/measure.mjs";

export const description =
  "list: GET /v1/sessions first / deepest page (walked and jumped), a rare search, the whole list, at 1k / 10k / 50k sessions";

const CREATE_CONCURRENCY = 16;
const PAGE = 200;
const seedKey = (i) => `agent:main:ls-${i}`;

export async function run(ctx) {
  const { client, log, signal } = ctx;
  const levels = ctx.quick ? [1000, 5000] : [1000, 10_000, 50_000];
  const reps = ctx.quick ? 5 : 20;
  const rows = [];
  let seeded = 0;
  for (const level of levels) {
    signal?.throwIfAborted();
    const missing = level - seeded;
    log(`creating ${missing} sessions (→ ${level}) at c=${CREATE_CONCURRENCY}`);
    const first = seeded;
    const created = await runConcurrent({
      signal,
      concurrency: CREATE_CONCURRENCY,
      total: missing,
      maxSeconds: 600,
      task: (i) =>
        client.request("PATCH", `/v1/sessions/${encodeURIComponent(seedKey(first + i))}`, {
          body: { label: `list seed ${first + i}` },
        }),
    });
    reportErrors(log, `create → ${level}`, created);
    seeded = level;
    rows.push({
      name: `create sessions → ${label(level)}`,
      value: created.perSecond,
      unit: "sessions/s",
      note: `${created.ok} PATCHes in ${created.seconds.toFixed(1)} s${created.timedOut ? "; TIMED OUT" : ""}`,
      errors: created.errors + (created.timedOut ? 1 : 0),
    });

    // 1. Walk every page once (as the Control UI and OpenClaw's sessions_list do).
    const walkStart = performance.now();
    let listed = 0;
    let deepest = 0;
    for (let offset = 0; offset !== null; ) {
      const body = JSON.parse((await client.get(`/v1/sessions?limit=${PAGE}&offset=${offset}`)).text);
      listed += body.sessions.length;
      deepest = offset;
      offset = body.hasMore ? body.nextOffset : null;
    }
    const walkMs = performance.now() - walkStart;
    const pages = Math.ceil(listed / PAGE);
    if (listed < level) log(`!! the walk listed ${listed} sessions, expected ≥ ${level}`);
    rows.push({
      name: `walk all pages of ${PAGE} @${label(level)}`,
      value: walkMs / Math.max(1, pages),
      unit: "ms/page",
      note: `${pages} pages, ${listed} rows, ${(walkMs / 1000).toFixed(1)} s in all`,
    });

    // 2. First page, the deepest page continued, the deepest page jumped to, a rare search.
    const cases = [
      ["first page", `/v1/sessions?limit=${PAGE}`],
      ["deepest page, continued", `/v1/sessions?limit=${PAGE}&offset=${deepest}`],
      ["deepest page, jumped", `/v1/sessions?limit=${PAGE}&offset=${Math.max(1, deepest - 1)}`],
      // Matches only the oldest session: a scan of every row before the change.
      ["search=ls-0 (one match, the oldest)", "/v1/sessions?limit=100&search=ls-0"],
    ];
    for (const [name, path] of cases) {
      const result = await measureRequests(ctx, {
        reps,
        request: () => client.get(path, { timeoutMs: 60_000 }),
        validate: (text) => {
          if (!Array.isArray(JSON.parse(text).sessions)) throw new Error(`${path}: ${text.slice(0, 200)}`);
        },
      });
      reportErrors(log, name, result);
      const body = JSON.parse((await client.get(path, { timeoutMs: 60_000 })).text);
      rows.push({
        name: `${name} @${label(level)} p50`,
        value: result.p50,
        unit: "ms",
        note: `p99 ${result.p99.toFixed(1)} ms, ${body.count} rows, ${(result.bytes / 1024).toFixed(1)} KiB, totalCount ${body.totalCount ?? "absent"}${body.truncationReason ? `, ${body.truncationReason}` : ""}`,
        errors: result.errors,
      });
    }

    // 3. A request for the whole list (a few times: before the clamp it returned every row).
    if (level === 10_000) {
      const whole = await measureRequests(ctx, {
        reps: 3,
        warmups: 1,
        request: () => client.get("/v1/sessions?limit=100000", { timeoutMs: 60_000 }),
        validate: () => {},
      });
      reportErrors(log, "whole list", whole);
      rows.push({
        name: `GET /v1/sessions?limit=100000 @${label(level)} p50`,
        value: whole.p50,
        unit: "ms",
        note: `${(whole.bytes / 1024 / 1024).toFixed(2)} MiB`,
        errors: whole.errors,
      });
    }
  }
  return rows;
}

function label(n) {
  return n >= 1000 && n % 1000 === 0 ? `${n / 1000}k` : String(n);
}
