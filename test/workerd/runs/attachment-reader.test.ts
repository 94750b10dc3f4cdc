import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { attachmentsOf, withMeteredAttachments } from "../../../src/metering/metered-env";
import { readAttachmentWithin } from "../../../src/runs/attachment-reader";

/**
 * A model part's file is read from R2 only within the run's bound (review of issue 46, finding 5):
 * its stored size (R2's, not the transcript's) is compared before the body is read, and a file
 * past the bound has its body cancelled; the bucket answers the next read as before.
 */
const MIB = 1024 * 1024;

describe("readAttachmentWithin (real R2)", () => {
  it("a stored object past maxBytes is null, unread; within it, its bytes; a gone key, null", async () => {
    const bucket = attachmentsOf(withMeteredAttachments(env, () => undefined));
    const key = `t-reader/agent:main:main/media/inbound/telegram-1-0.jpg`;
    // An import overwrote the photo's predictable key with a 6 MiB file (the transcript still says a few bytes).
    const big = new Uint8Array(6 * MIB).fill(7);
    await bucket.put(key, big);
    expect(await readAttachmentWithin(bucket, key, 5 * MIB)).toBeNull();
    // The cancelled body left nothing pending: the same object reads whole where the bound allows it.
    const whole = await readAttachmentWithin(bucket, key, 6 * MIB);
    expect(whole?.byteLength).toBe(6 * MIB);
    expect(whole?.[6 * MIB - 1]).toBe(7);
    expect((await readAttachmentWithin(bucket, key))?.byteLength).toBe(6 * MIB);
    expect(await readAttachmentWithin(bucket, `${key}.gone`, 5 * MIB)).toBeNull();
    expect(await readAttachmentWithin(undefined, key, 5 * MIB)).toBeNull();
    await bucket.delete([{ key, size: big.byteLength }]);
  });
});
