import { DomainError, rateLimited } from "../../domain/errors";
import { mediaBytesLeft } from "../../domain/media-quota";
import type { MeteredBucket } from "../../metering/metered-bucket";
import { STORAGE_FULL_RETRY_MS } from "../../policy/limit-rules";
import type { FileChunksResult } from "../../protocol/import";
import { FILE_CHUNK_MAX_BYTES, type FileChunk } from "../../protocol/session-files";
import { decodeStrictBase64, deleteAttachments } from "../../spawn/spawn-attachments";
import { sha256Hex, toHex } from "../../util/encoding";

/**
 * An import page's file chunks (the export's `file` lines) into the importing tenant's bucket:
 * every chunk is checked before anything is written (path, size, the tenant's
 * `mediaBytesPerFile` and the room left under `mediaBytesPerTenant`), kept under the session's
 * staging folder until its file is whole, then the file is streamed into its one key under the
 * session's prefix with its SHA-256 checked on the way (R2 refuses the write when it differs,
 * so a bad or incomplete file is never at the key a message points at) and its chunks deleted.
 * Keys are built here from the tenant, the session and the checked path: never taken from the body.
 */

/** Where a file's chunks wait under the session's prefix (outside the folders a file path may name). */
const STAGING_FOLDER = ".import-staging/";

export type FileImportPorts = {
  bucket: MeteredBucket;
  tenantId: string;
  /** The importing session's prefix (sessionAttachmentPrefix). */
  sessionPrefix: string;
  /** The tenant's `mediaBytesPerFile` and `mediaBytesPerTenant` in force. */
  limits: { perFile: number; perTenant: number };
};

type CheckedChunk = FileChunk & { bytesOfChunk: Uint8Array; stagingDir: string; fileKey: string };

/**
 * Checks a page's chunks and returns the writer that stores them; throws a DomainError naming
 * the first refused chunk (400 path/data, 413 over the file limit, 429 tenant storage full).
 */
export async function checkFileChunks(ports: FileImportPorts, chunks: FileChunk[]) {
  const checked: CheckedChunk[] = [];
  for (const [index, chunk] of chunks.entries()) checked.push(await checkedChunk(ports, chunk, `files.${index}`));
  await checkRoom(ports, checked);
  return { write: () => writeChunks(ports, checked) };
}

async function checkedChunk(ports: FileImportPorts, chunk: FileChunk, field: string): Promise<CheckedChunk> {
  if (chunk.bytes > ports.limits.perFile) {
    throw new DomainError(
      "too_large",
      `${field}: file ${chunk.path} is ${chunk.bytes} bytes; the limit is ${ports.limits.perFile} bytes per file (mediaBytesPerFile)`,
    );
  }
  const bytesOfChunk = decodeStrictBase64(chunk.data, FILE_CHUNK_MAX_BYTES);
  const expected = expectedChunkBytes(chunk);
  if (!bytesOfChunk || bytesOfChunk.byteLength !== expected) {
    throw new DomainError(
      "invalid",
      `${field}.data: chunk ${chunk.chunk} of ${chunk.path} must hold ${expected} bytes (chunks of ${FILE_CHUNK_MAX_BYTES}, the last one the rest)`,
    );
  }
  const identity = await sha256Hex(`${chunk.path}\n${chunk.sha256}\n${chunk.bytes}`);
  return {
    ...chunk,
    bytesOfChunk,
    stagingDir: `${ports.sessionPrefix}${STAGING_FOLDER}${identity}/`,
    fileKey: `${ports.sessionPrefix}${chunk.path}`,
  };
}

/** Every chunk but the last holds FILE_CHUNK_MAX_BYTES (the export's cut), the last the rest. */
function expectedChunkBytes(chunk: FileChunk): number {
  return chunk.chunk < chunk.chunks - 1
    ? FILE_CHUNK_MAX_BYTES
    : chunk.bytes - (chunk.chunks - 1) * FILE_CHUNK_MAX_BYTES;
}

/**
 * The tenant must have room for a file when it starts (nothing of it staged yet): refused at its
 * first chunk, not half way through, and once per file: its later pages list nothing of the
 * tenant's prefix (a Class A call per 1,000 objects). The room is measured, not reserved:
 * pages sent at once may each find it, and go over by what they carry (docs/operations.md).
 */
async function checkRoom(ports: FileImportPorts, chunks: CheckedChunk[]): Promise<void> {
  const needs = new Map<string, number>();
  for (const chunk of chunks) {
    if (needs.has(chunk.stagingDir) || (await storedAlready(ports.bucket, chunk))) continue;
    const started = (await stagedChunks(ports.bucket, chunk.stagingDir)).names.size > 0;
    needs.set(chunk.stagingDir, started ? 0 : chunk.bytes);
  }
  const needed = [...needs.values()].reduce((sum, bytes) => sum + bytes, 0);
  if (needed === 0) return;
  const left = await mediaBytesLeft(ports.bucket, ports.tenantId, ports.limits.perTenant);
  if (needed > left) {
    throw rateLimited(
      `Media storage full: the tenant has ${left} bytes left of its ${ports.limits.perTenant} (mediaBytesPerTenant) and these files need ${needed} more; delete sessions to import them`,
      STORAGE_FULL_RETRY_MS,
    );
  }
}

async function writeChunks(ports: FileImportPorts, chunks: CheckedChunk[]): Promise<FileChunksResult> {
  const result: FileChunksResult = { staged: 0, stored: [], skipped: 0 };
  for (const chunk of chunks) {
    const held = await ports.bucket.head(chunk.fileKey);
    if (isThisFile(held, chunk)) {
      result.skipped++;
      continue;
    }
    // A chunk already staged (a retried page) is not put again: each staging key is written
    // once, so the chunks' deletion frees what their puts stored.
    const staged = await stagedChunks(ports.bucket, chunk.stagingDir);
    const name = chunkName(chunk.chunk);
    if (!staged.names.has(name)) {
      await ports.bucket.put(`${chunk.stagingDir}${name}`, chunk.bytesOfChunk);
      staged.names.add(name);
    }
    if (staged.names.size < chunk.chunks) {
      result.staged++;
      continue;
    }
    await assembleOnce(ports.bucket, chunk, held);
    result.stored.push(chunk.path);
  }
  return result;
}

/**
 * Two pages finishing one file at once both assemble it; the one whose chunks the other deleted
 * first finds the file stored, and answers so (not a 409 for a file that is there).
 */
async function assembleOnce(bucket: MeteredBucket, file: CheckedChunk, replacing: R2Object | null): Promise<void> {
  try {
    await assemble(bucket, file, replacing);
  } catch (error) {
    const chunkTaken = error instanceof DomainError && error.code === "conflict";
    if (!chunkTaken || !(await storedAlready(bucket, file))) throw error;
  }
}

/** Whether the object at a file's key is that file (its size and SHA-256): a rerun of the import. */
function isThisFile(held: R2Object | null, chunk: CheckedChunk): boolean {
  const sha256 = held?.checksums.sha256;
  return held?.size === chunk.bytes && sha256 !== undefined && toHex(new Uint8Array(sha256)) === chunk.sha256;
}

/** Whether the session already holds the file with this SHA-256 (a rerun of the import). */
async function storedAlready(bucket: MeteredBucket, chunk: CheckedChunk): Promise<boolean> {
  return isThisFile(await bucket.head(chunk.fileKey), chunk);
}

/** The chunks kept for a file so far (a list page is 1,000 objects; a file past 250 MB has more). */
async function stagedChunks(bucket: MeteredBucket, dir: string): Promise<{ names: Set<string> }> {
  const names = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix: dir, ...(cursor ? { cursor } : {}) });
    for (const object of page.objects) names.add(object.key.slice(dir.length));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return { names };
}

/**
 * Streams a whole file's chunks, in order, into its key with its declared length and SHA-256:
 * R2 refuses a write whose bytes differ, and the digest taken on the way names the mismatch.
 * The chunks are deleted either way (a mismatch starts the file afresh).
 */
async function assemble(bucket: MeteredBucket, file: CheckedChunk, replacing: R2Object | null): Promise<void> {
  const fixed = new FixedLengthStream(file.bytes);
  const digest = new crypto.DigestStream("SHA-256");
  const feed = feedChunks(bucket, file, fixed.writable, digest);
  // Another file at the path (the source's file changed since an earlier import) is replaced: its bytes are freed.
  const put = bucket.put(
    file.fileKey,
    fixed.readable,
    { sha256: file.sha256, ...(file.mimeType ? { httpMetadata: { contentType: file.mimeType } } : {}) },
    replacing,
  );
  const [fed, stored] = await Promise.allSettled([feed, put]);
  await deleteAttachments(bucket, file.stagingDir);
  if (fed.status === "rejected") throw fed.reason;
  const actual = toHex(new Uint8Array(await digest.digest));
  if (actual !== file.sha256) {
    // R2 refused the write; a store that did not would still leave nothing behind.
    if (stored.status === "fulfilled" && stored.value)
      await bucket.delete([{ key: file.fileKey, size: stored.value.size }]);
    throw new DomainError(
      "invalid",
      `file ${file.path}: its ${file.bytes} bytes have SHA-256 ${actual}, not ${file.sha256}; nothing stored (send its chunks again)`,
    );
  }
  if (stored.status === "rejected") throw stored.reason;
}

async function feedChunks(
  bucket: MeteredBucket,
  file: CheckedChunk,
  into: WritableStream<Uint8Array>,
  digest: WritableStream<ArrayBuffer | ArrayBufferView>,
): Promise<void> {
  const writer = into.getWriter();
  const hashing = digest.getWriter();
  try {
    for (let index = 0; index < file.chunks; index++) {
      const object = await bucket.get(`${file.stagingDir}${chunkName(index)}`);
      if (!object)
        throw new DomainError("conflict", `file ${file.path}: chunk ${index} went missing; send the file again`);
      const bytes = new Uint8Array(await object.arrayBuffer());
      await hashing.write(bytes);
      await writer.write(bytes);
    }
    await hashing.close();
    await writer.close();
  } catch (error) {
    await hashing.abort(error).catch(() => undefined);
    await writer.abort(error).catch(() => undefined);
    throw error;
  }
}

/** Zero-padded, so a listing is in chunk order. */
function chunkName(index: number): string {
  return String(index).padStart(6, "0");
}
