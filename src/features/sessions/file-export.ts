import type { MeteredBucket } from "../../metering/metered-bucket";
import { FILE_CHUNK_MAX_BYTES, isSessionFilePath } from "../../protocol/session-files";
import { isLegacyOwnFile, legacyAttachmentPrefix } from "../../spawn/legacy-attachments";
import { sessionAttachmentPrefix } from "../../spawn/spawn-attachments";
import { toBase64, toHex } from "../../util/encoding";

/**
 * A session's stored files as export lines: each object under the session's prefix in a file
 * folder (media/, .openclaw/attachments/), cut into FILE_CHUNK_MAX_BYTES chunks, each line naming
 * the file's path under the session, type, size and SHA-256 (from R2's checksum when the object
 * has one, else hashed in a first streamed read). Memory holds one chunk at a time.
 */

/** What the files of the export came to (the closing line's `files` and `fileBytes`). */
export type FileCounts = { files: number; fileBytes: number };

export async function* sessionFileLines(
  bucket: MeteredBucket,
  tenantId: string,
  key: string,
  counts: FileCounts,
): AsyncGenerator<string> {
  yield* filesUnder(bucket, sessionAttachmentPrefix(tenantId, key), key, counts, isSessionFilePath);
  // Files stored before the prefix escaped `/` and `%`: only this session's own (legacy-attachments.ts).
  const legacy = legacyAttachmentPrefix(tenantId, key);
  if (legacy)
    yield* filesUnder(bucket, legacy, key, counts, (path) => isLegacyOwnFile(path) && isSessionFilePath(path));
}

/** The file lines of the objects under `prefix` whose path under it `exported` accepts. */
async function* filesUnder(
  bucket: MeteredBucket,
  prefix: string,
  key: string,
  counts: FileCounts,
  exported: (path: string) => boolean,
): AsyncGenerator<string> {
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix, include: ["httpMetadata"], ...(cursor ? { cursor } : {}) });
    for (const listed of page.objects) {
      const path = listed.key.slice(prefix.length);
      // Import staging and whatever else is not a session's file stays behind.
      if (!exported(path)) continue;
      const sha256 = await sha256Of(bucket, listed);
      const object = sha256 ? await bucket.get(listed.key) : null;
      // Deleted since the listing.
      if (!sha256 || !object) continue;
      counts.files++;
      counts.fileBytes += object.size;
      const head = {
        type: "file",
        key,
        path,
        ...(listed.httpMetadata?.contentType ? { mimeType: listed.httpMetadata.contentType } : {}),
        bytes: object.size,
        sha256,
      };
      const chunks = Math.max(1, Math.ceil(object.size / FILE_CHUNK_MAX_BYTES));
      let chunk = 0;
      for await (const bytes of fixedChunks(object.body, FILE_CHUNK_MAX_BYTES)) {
        yield `${JSON.stringify({ ...head, chunk, chunks, data: toBase64(bytes) })}\n`;
        chunk++;
      }
      if (object.size === 0) yield `${JSON.stringify({ ...head, chunk: 0, chunks: 1, data: "" })}\n`;
    }
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
}

/** The object's SHA-256 as hex: R2's checksum when it was stored with one, else read and hashed; null when gone. */
async function sha256Of(bucket: MeteredBucket, listed: R2Object): Promise<string | null> {
  const known = listed.checksums?.sha256;
  if (known) return toHex(new Uint8Array(known));
  const object = await bucket.get(listed.key);
  if (!object) return null;
  const digest = new crypto.DigestStream("SHA-256");
  await object.body.pipeTo(digest);
  return toHex(new Uint8Array(await digest.digest));
}

/** A byte stream re-cut into pieces of exactly `size` bytes (the last one the rest). */
async function* fixedChunks(stream: ReadableStream<Uint8Array>, size: number): AsyncGenerator<Uint8Array> {
  let buffer = new Uint8Array(size);
  let filled = 0;
  for await (const piece of stream) {
    let at = 0;
    while (at < piece.byteLength) {
      const taken = Math.min(size - filled, piece.byteLength - at);
      buffer.set(piece.subarray(at, at + taken), filled);
      filled += taken;
      at += taken;
      if (filled === size) {
        yield buffer;
        buffer = new Uint8Array(size);
        filled = 0;
      }
    }
  }
  if (filled > 0) yield buffer.subarray(0, filled);
}
