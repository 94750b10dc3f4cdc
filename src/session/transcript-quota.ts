import { remoteRefusal } from "../domain/errors";
import type { TranscriptLimits } from "../policy/limit-rules";

/** How old the tenant's answer may be before an append asks again (in the background). */
export const TRANSCRIPT_LIMITS_REFRESH_MS = 5_000;

/**
 * A session object's view of its tenant's transcript byte limits (transcriptBytesPerSession,
 * and whether the tenant's sessions are full): asked once when the object first appends, then
 * again in the background when older than TRANSCRIPT_LIMITS_REFRESH_MS, so an append waits for
 * the tenant object only on its object's first one.
 */
export class TranscriptQuota {
  private known: { limits: TranscriptLimits; readAt: number } | null = null;
  private reading: Promise<TranscriptLimits> | null = null;

  constructor(
    private readonly ask: (tenantId: string) => Promise<TranscriptLimits>,
    private readonly waitUntil: (promise: Promise<unknown>) => void,
  ) {}

  /** The bytes this session may hold; throws the tenant's refusal when its bytes are full. */
  async admitAppend(tenantId: string, now = Date.now()): Promise<number> {
    const known = this.known;
    let limits: TranscriptLimits;
    if (!known) limits = await this.read(tenantId);
    else {
      if (now - known.readAt >= TRANSCRIPT_LIMITS_REFRESH_MS && !this.reading) {
        this.waitUntil(this.read(tenantId).catch(() => undefined));
      }
      limits = known.limits;
    }
    if (limits.tenantFull) throw remoteRefusal(limits.tenantFull.message, limits.tenantFull.retryAfterMs);
    return limits.perSession;
  }

  private read(tenantId: string): Promise<TranscriptLimits> {
    this.reading ??= this.ask(tenantId)
      .then((limits) => {
        this.known = { limits, readAt: Date.now() };
        return limits;
      })
      .finally(() => {
        this.reading = null;
      });
    return this.reading;
  }
}
