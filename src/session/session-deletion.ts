import type { SessionRef } from "../contracts/session-api";
import { attachmentsOf, operatorAttachmentsOf } from "../metering/metered-env";
import { deleteSessionAttachments } from "../spawn/legacy-attachments";
import { tenantApi } from "../stubs";
import type { SessionParts } from "./session-parts";

/**
 * Removes the session and its transcripts (active runs are stopped first), no claim slipping in
 * meanwhile, then its row in the tenant's index and its files. A deleted tenant's ledger is
 * cleared at its end: the files freed then are billed to nobody, so they stay off it.
 */
export function deleteSession(
  parts: SessionParts,
  env: Env,
  ref: SessionRef,
  options: { tenantDeleting?: boolean },
): Promise<boolean> {
  return parts.claims.fence(async () => {
    const existed = parts.transcript.entry() !== null;
    parts.runs.abortAll();
    parts.followers.closeAll();
    parts.runTaps.closeAll();
    parts.timers.forget();
    await parts.store.wipe();
    const indexed = await tenantApi(env, ref.tenantId).removeSession(ref.key, Date.now());
    const bucket = options.tenantDeleting ? operatorAttachmentsOf(env) : attachmentsOf(env);
    await deleteSessionAttachments(bucket, ref.tenantId, ref.key);
    return existed || indexed;
  });
}
