import { z } from "zod";

/**
 * A session's stored files (the ATTACHMENTS bucket under the session's prefix: chat media,
 * sub-agent attachments) as the export writes them and an import page takes them back: each
 * file in chunks of at most FILE_CHUNK_MAX_BYTES, each chunk naming the whole file (path
 * relative to the session, size, SHA-256), so a chunk can be checked alone and memory stays
 * bounded on both sides.
 */

/** Bytes of a file per export line (the last chunk may be shorter): ~350 KB of base64 a line. */
export const FILE_CHUNK_MAX_BYTES = 256 * 1024;

/** File chunks one import page may carry (a page's body stays under the 2 MiB request cap). */
export const IMPORT_MAX_FILE_CHUNKS = 4;

/**
 * The folders of a session's prefix that hold its files: `media/` (a chat message's files,
 * src/features/channels/inbound-media.ts) and `.openclaw/attachments/` (sessions_spawn's). A path
 * elsewhere is no file this service writes, so an import refuses it.
 */
const SESSION_FILE_FOLDERS = ["media/", ".openclaw/attachments/"] as const;

/** A path segment: not empty, `.` or `..`, no backslash or control character. */
const SAFE_SEGMENT = /^(?!\.{1,2}$)[^\\\u0000-\u001f\u007f]{1,255}$/;

/** Whether `path` names a file inside a session's own folders (relative, no `..`, no empty segment). */
export function isSessionFilePath(path: string): boolean {
  if (path.length > 1024 || !SESSION_FILE_FOLDERS.some((folder) => path.startsWith(folder))) return false;
  return path.split("/").every((segment) => SAFE_SEGMENT.test(segment));
}

const SHA256_HEX = /^[0-9a-f]{64}$/;
/** Standard base64 with padding (an empty chunk is a zero-byte file's only one). */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** One chunk of one file: what the export writes after `{"type":"file","key":…}` and an import page takes. */
export const fileChunkSchema = z
  .strictObject({
    /** The export line's own fields: accepted as they are (the page's URL names the session). */
    type: z.literal("file").optional(),
    key: z.string().max(1024).optional(),
    path: z
      .string()
      .refine(
        isSessionFilePath,
        "path must be relative to the session, under media/ or .openclaw/attachments/, without ..",
      )
      .describe("The file's path under the session (e.g. media/inbound/telegram-42-0.jpg)."),
    mimeType: z.string().min(1).max(256).optional(),
    bytes: z.int().min(0).max(Number.MAX_SAFE_INTEGER).describe("The whole file's size."),
    sha256: z
      .string()
      .regex(SHA256_HEX, "sha256 must be 64 lowercase hex digits")
      .describe("The whole file's SHA-256."),
    chunk: z.int().min(0).describe("This chunk's index, from 0."),
    chunks: z.int().min(1).describe("How many chunks the file has."),
    data: z
      .string()
      .max(Math.ceil(FILE_CHUNK_MAX_BYTES / 3) * 4, `a chunk holds at most ${FILE_CHUNK_MAX_BYTES} bytes`)
      .regex(BASE64, "data must be standard base64"),
  })
  .superRefine((chunk, issues) => {
    if (chunk.chunk >= chunk.chunks)
      issues.addIssue({ code: "custom", path: ["chunk"], message: "chunk must be below chunks" });
    // Every chunk but the last holds FILE_CHUNK_MAX_BYTES (a zero-byte file has one empty chunk).
    const count = Math.max(1, Math.ceil(chunk.bytes / FILE_CHUNK_MAX_BYTES));
    if (chunk.chunks !== count) {
      issues.addIssue({
        code: "custom",
        path: ["chunks"],
        message: `a file of ${chunk.bytes} bytes has ${count} chunks of at most ${FILE_CHUNK_MAX_BYTES} bytes`,
      });
    }
  });
export type FileChunk = z.infer<typeof fileChunkSchema>;
