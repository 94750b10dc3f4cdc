import { describe, expect, it } from "vitest";
import { DomainError, remoteRefusal, restoreRefusal } from "../../../src/domain/errors";
import type { TranscriptLimits } from "../../../src/policy/limit-rules";
import { TRANSCRIPT_LIMITS_REFRESH_MS, TranscriptQuota } from "../../../src/session/transcript-quota";

describe("TranscriptQuota: a session object's view of its tenant's byte limits", () => {
  const full = { limit: "transcriptBytesPerTenant" as const, message: "Transcript storage full", retryAfterMs: 60_000 };

  it("asks the tenant on the first append only, then again in the background once the answer is old", async () => {
    const answers: TranscriptLimits[] = [
      { perSession: 4_000, tenantFull: null },
      { perSession: 2_000, tenantFull: full },
    ];
    let asked = 0;
    const background: Promise<unknown>[] = [];
    const quota = new TranscriptQuota(
      async () => answers[asked++]!,
      (promise) => background.push(promise),
    );
    const start = Date.now();
    expect(await quota.admitAppend("t", start)).toBe(4_000);
    expect(await quota.admitAppend("t", start + 1)).toBe(4_000);
    expect(asked).toBe(1);
    // Old: this append is checked against what is known, the new answer serves the next one.
    expect(await quota.admitAppend("t", start + TRANSCRIPT_LIMITS_REFRESH_MS + 1_000)).toBe(4_000);
    await Promise.all(background);
    expect(asked).toBe(2);
    const refused = await quota.admitAppend("t").catch((error: unknown) => restoreRefusal(error));
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ code: "rate_limited", message: "Transcript storage full" });
    expect((refused as DomainError).details).toEqual({ retryAfterMs: 60_000 });
  });

  it("restores only the errors remoteRefusal made", () => {
    const other = new Error("boom");
    expect(restoreRefusal(other)).toBe(other);
    const restored = restoreRefusal(new Error(remoteRefusal("a; b", 5_000).message));
    expect(restored).toMatchObject({ code: "rate_limited", message: "a; b", details: { retryAfterMs: 5_000 } });
  });
});
