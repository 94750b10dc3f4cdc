import type { PatchOptions } from "../../contracts/session-api";
import type { TenantContext } from "../../domain/context";
import { DomainError } from "../../domain/errors";
import { canonicalKey } from "../../domain/keys";
import { markFields, marksProblem, marksStale } from "../../domain/marks";
import { type PatchResult, patchSession } from "../../domain/session-index";
import type { SessionMarks, SessionPatch } from "../../protocol/session";

/**
 * `sessions.patch` with the Control UI's marks (unread / pinned / archived and their guards):
 * OpenClaw's rules refuse impossible marks and skip stale guarded ones (answered ok, unchanged).
 */
export async function patchWithMarks(
  ctx: TenantContext<"index">,
  rawKey: string,
  patch: SessionPatch,
  marks: SessionMarks,
  options: PatchOptions = {},
): Promise<PatchResult> {
  if (marks.unread === undefined && marks.pinned === undefined && marks.archived === undefined) {
    return patchSession(ctx, rawKey, patch, options);
  }
  const key = canonicalKey(ctx, rawKey);
  const entry = await ctx.sessions(key).entry();
  const problem = marksProblem(marks, entry, key);
  if (problem) throw new DomainError("invalid", problem);
  const fields = marksStale(marks, entry) ? {} : markFields(marks, Date.now());
  const combined: SessionPatch = { ...patch, ...fields };
  return patchSession(ctx, rawKey, combined, options);
}
