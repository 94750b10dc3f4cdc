import type { MeteredBucket } from "../metering/metered-bucket";

/**
 * A stored attachment's bytes, or null when it is gone or larger than `maxBytes`. The size is the
 * object's own (R2's, known before its body is read), not the one the transcript recorded: an
 * import may overwrite a file's key with up to mediaBytesPerFile (100 MiB), and a file past the
 * run's bound has its body cancelled unread, so no model call loads it into the isolate.
 */
export async function readAttachmentWithin(
  bucket: MeteredBucket | undefined,
  key: string,
  maxBytes = Number.POSITIVE_INFINITY,
): Promise<Uint8Array | null> {
  const object = await bucket?.get(key);
  if (!object) return null;
  if (object.size > maxBytes) {
    await object.body.cancel();
    return null;
  }
  return new Uint8Array(await object.arrayBuffer());
}
