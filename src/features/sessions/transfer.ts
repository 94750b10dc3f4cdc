import type { TenantContext } from "../../domain/context";
import { DomainError, refusalsRestored } from "../../domain/errors";
import { canonicalKey, sessionRef } from "../../domain/keys";
import { tooLargeMessage } from "../../model/message-limits";
import type { MessageRecord } from "../../model/message-record";
import type { ImportBody, ImportResult } from "../../protocol/import";
import { sessionAttachmentPrefix } from "../../spawn/spawn-attachments";
import { type FileCounts, sessionFileLines } from "./file-export";
import { checkFileChunks } from "./file-import";
import { withImportedMediaKeys } from "./media-references";
import { transcriptPages } from "./sessions";

/** Sessions in and out of a tenant: import pages from another gateway, tenant-wide export. */

/**
 * Writes one import page into a session (created by the first page): its messages with their
 * media keys under this session's prefix, then its file chunks (checked before anything of the
 * page is written, stored under the same prefix: file-import.ts).
 */
export async function importPage(
  ctx: TenantContext<"index" | "runs">,
  rawKey: string,
  body: ImportBody,
): Promise<ImportResult> {
  const key = canonicalKey(ctx, rawKey);
  const ref = sessionRef(ctx, key);
  const { files, ...page } = body;
  const sessionPrefix = sessionAttachmentPrefix(ctx.tenantId, key);
  const fileWriter = files?.length ? await checkFileChunks(await filePorts(ctx, sessionPrefix), files) : null;
  // A transcript id names one session of a tenant (history, resolve and export look it up).
  const owner = await ctx.tenant.claimSessionId(body.sessionId, key, ref.agentId);
  if (owner) throw new DomainError("conflict", `sessionId ${body.sessionId} already belongs to session ${owner}`);
  const messages = withImportedMediaKeys(page.messages, sessionPrefix);
  const result = await refusalsRestored(ctx.sessions(key).importPage(ref, { ...page, messages }));
  if ("rejected" in result) {
    if (result.rejected === "conflict") throw new DomainError("conflict", result.message);
    throw new DomainError("too_large", tooLargeMessage(result));
  }
  // Files only once the session took the page as this import's (a 409 above writes none).
  return fileWriter ? { ...result, files: await fileWriter.write() } : result;
}

async function filePorts(ctx: TenantContext<"runs">, sessionPrefix: string) {
  const { limits } = await ctx.tenant.limits();
  return {
    bucket: ctx.attachments,
    tenantId: ctx.tenantId,
    sessionPrefix,
    limits: { perFile: limits.mediaBytesPerFile.limit, perTenant: limits.mediaBytesPerTenant.limit },
  };
}

/** Keys read from the index per page while exporting. */
const EXPORT_KEYS_PER_PAGE = 100;

/** 2: each session's stored files as `file` lines after its messages, and the closing line counts them. */
export const EXPORT_FORMAT_VERSION = 2;

/**
 * The whole tenant as JSONL lines: a header, then per session its entry, each of its
 * transcripts (older ones first) and their messages in order, its stored files in chunks
 * (file-export.ts), then a closing line with the counts (a stream cut short has none). Index
 * pages, transcript pages, file chunks: memory stays bounded.
 */
export async function* exportLines(ctx: TenantContext<"index">): AsyncGenerator<string> {
  yield line({
    type: "export",
    version: EXPORT_FORMAT_VERSION,
    tenantId: ctx.tenantId,
    exportedAt: new Date().toISOString(),
  });
  const counts = { sessions: 0, transcripts: 0, messages: 0 };
  const fileCounts: FileCounts = { files: 0, fileBytes: 0 };
  let afterKey = "";
  for (;;) {
    const keys = await ctx.tenant.sessionKeysAfter(afterKey, EXPORT_KEYS_PER_PAGE);
    for (const key of keys) {
      const stub = ctx.sessions(key);
      const [entry, transcripts] = await Promise.all([stub.entry(), stub.transcripts()]);
      // Deleted since the index page was read.
      if (!entry) continue;
      counts.sessions++;
      yield line({ type: "session", key, entry });
      for (const transcript of transcripts) {
        const current = transcript.sessionId === entry.sessionId;
        counts.transcripts++;
        yield line({ type: "transcript", key, ...transcript, current });
        const pages = await pagesOf(ctx, key, transcript.sessionId);
        const prefix = `{"type":"message","key":${JSON.stringify(key)},"sessionId":${JSON.stringify(transcript.sessionId)},"message":`;
        for await (const page of pages) {
          if (page.length === 0) continue;
          counts.messages += page.length;
          // Stored JSON goes out as it is (it already carries __openclaw { id, seq }).
          yield page.map((record) => `${prefix}${record.json}}\n`).join("");
        }
      }
      yield* sessionFileLines(ctx.attachments, ctx.tenantId, key, fileCounts);
    }
    if (keys.length < EXPORT_KEYS_PER_PAGE) break;
    afterKey = keys.at(-1)!;
  }
  yield line({ type: "end", ...counts, ...fileCounts });
}

/** A transcript's pages; none when the session was deleted since it was listed. */
async function pagesOf(
  ctx: TenantContext<"index">,
  key: string,
  sessionId: string,
): Promise<AsyncIterable<MessageRecord[]> | MessageRecord[][]> {
  try {
    return (await transcriptPages(ctx, key, { sessionId, includeTools: true })).pages;
  } catch (error) {
    if (error instanceof DomainError && error.code === "not_found") return [];
    throw error;
  }
}

function line(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}
