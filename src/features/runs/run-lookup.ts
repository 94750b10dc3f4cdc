import type { TenantContext } from "../../domain/context";
import { DomainError } from "../../domain/errors";
import { canonicalKey } from "../../domain/keys";
import { MAX_RUN_WAIT_SECONDS, RUN_LIST_DEFAULT_LIMIT, RUN_LIST_MAX_LIMIT, type RunView } from "../../protocol/runs";

/** Runs as the HTTP API shows them: one run (optionally waited for), or a session's runs. */

/**
 * A run by id, anywhere in the tenant. With `waitSeconds` the answer comes when the run ends,
 * or after that long (capped at MAX_RUN_WAIT_SECONDS) with the run as it is then.
 */
export async function getRun(
  ctx: TenantContext<"runs">,
  runId: string,
  waitSeconds = 0,
): Promise<{ run: RunView; waitedMs?: number }> {
  const key = await ctx.tenant.runKey(runId);
  if (!key) throw new DomainError("not_found", `Run not found: ${runId}`);
  const waitMs = Math.round(Math.min(waitSeconds, MAX_RUN_WAIT_SECONDS) * 1000);
  const started = Date.now();
  const run = await ctx.sessions(key).runView(runId, waitMs);
  // A run id recorded for a session that was deleted since: its runs went with it.
  if (!run) throw new DomainError("not_found", `Run not found: ${runId}`);
  return { run, ...(waitMs > 0 ? { waitedMs: Date.now() - started } : {}) };
}

/** A session's runs, newest first, paged by an opaque cursor. */
export async function listRuns(
  ctx: TenantContext<"runs">,
  rawKey: string,
  query: { limit?: number; cursor?: string },
): Promise<{ sessionKey: string; runs: RunView[]; hasMore: boolean; nextCursor?: string }> {
  const key = canonicalKey(ctx, rawKey);
  const limit = Math.min(query.limit ?? RUN_LIST_DEFAULT_LIMIT, RUN_LIST_MAX_LIMIT);
  const page = await ctx.sessions(key).runPage(limit, query.cursor ? Number(query.cursor) : undefined);
  if (!page) throw new DomainError("not_found", `Session not found: ${key}`);
  return {
    sessionKey: key,
    runs: page.runs,
    hasMore: page.nextSeq !== undefined,
    ...(page.nextSeq !== undefined ? { nextCursor: String(page.nextSeq) } : {}),
  };
}
