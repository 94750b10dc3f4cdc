import { type InboundMedia, mediaPath } from "../../model/inbound-media";
import type { ModelPartTypes } from "../../protocol/runner-specs/runner-declaration";
import { sizeText } from "../../util/size-text";
import type { ContextFile, ContextMessage, ModelPart, RunnerRequest } from "./runner";

/**
 * A chat message's files as its model gets them: a file whose type the runner's declaration
 * says its wire format takes (`modelParts`) goes as a native part (OpenAI `image_url` / `file`,
 * Anthropic `image` / `document`), read from the ATTACHMENTS bucket when the runner calls the
 * model. Bounded per run: an image up to MODEL_IMAGE_MAX_BYTES, the parts together up to
 * MODEL_PARTS_MAX_BYTES_PER_RUN; a file past either keeps its text line (`[media attached: …]`)
 * and the model is told why, and a type the runner does not take keeps its line alone.
 */

/** OpenClaw's `agents.defaults.mediaMaxMb` for images given to the model (5 MB). */
export const MODEL_IMAGE_MAX_BYTES = 5 * 1024 * 1024;
/**
 * The bytes of files one run gives its model as parts: OpenClaw's `agents.defaults.pdfMaxBytesMb`
 * (10 MB). As base64 that is 13.3 MB of request, under Anthropic's 32 MB per request, and the
 * copies a call makes (bytes, base64, JSON body) stay well inside a Worker's 128 MB.
 */
export const MODEL_PARTS_MAX_BYTES_PER_RUN = 10 * 1024 * 1024;

/** The files a run's model is given as parts, and a note for each one left out for its size. */
export type ModelFiles = { files: ContextFile[]; notes: string[] };

/** The run's files its runner takes as parts (`takes`: its declaration's `modelParts`), within the run's bounds. */
export function modelFiles(media: InboundMedia[] | undefined, takes: ModelPartTypes | undefined): ModelFiles {
  const files: ContextFile[] = [];
  const notes: string[] = [];
  let left = MODEL_PARTS_MAX_BYTES_PER_RUN;
  for (const file of media ?? []) {
    const mimeType = bareType(file.mimeType);
    const part = partOf(mimeType, takes);
    if (!part) continue;
    const over = overBy(part, file.bytes, left);
    if (over) {
      notes.push(`[media not given to the model: ${mediaPath(file)} (${sizeText(file.bytes)}) ${over}]`);
      continue;
    }
    left -= file.bytes;
    files.push({
      key: file.key,
      part,
      mimeType,
      bytes: file.bytes,
      ...(file.fileName ? { fileName: file.fileName } : {}),
    });
  }
  return { files, notes };
}

/**
 * Each context file's bytes, by key (one gone from the bucket, or larger than recorded past the
 * bounds, is left out). The bucket is asked with the bytes the file may still take, so a stored
 * object past them (an import may overwrite a file's key with a far larger one) is never read.
 */
export async function loadFiles(request: Pick<RunnerRequest, "readAttachment">, context: ContextMessage[]) {
  const loaded = new Map<string, Uint8Array>();
  let left = MODEL_PARTS_MAX_BYTES_PER_RUN;
  for (const message of context) {
    if (message.role !== "user") continue;
    for (const file of message.files ?? []) {
      if (loaded.has(file.key)) continue;
      const bytes = await request.readAttachment(
        file.key,
        file.part === "image" ? Math.min(MODEL_IMAGE_MAX_BYTES, left) : left,
      );
      if (!bytes || overBy(file.part, bytes.byteLength, left)) continue;
      left -= bytes.byteLength;
      loaded.set(file.key, bytes);
    }
  }
  return loaded;
}

/** A user message's files that were loaded, with their bytes. */
export function loadedFiles(
  message: { files?: ContextFile[] },
  loaded: ReadonlyMap<string, Uint8Array>,
): Array<ContextFile & { data: Uint8Array }> {
  return (message.files ?? []).flatMap((file) => {
    const data = loaded.get(file.key);
    return data ? [{ ...file, data }] : [];
  });
}

/** The name a document part carries: the sender's file name, else the stored file's. */
export function partFileName(file: ContextFile): string {
  return file.fileName ?? file.key.slice(file.key.lastIndexOf("/") + 1);
}

/** A text document's content (UTF-8); null when its bytes are not text, so it stays described. */
export function documentText(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return null;
  }
}

function partOf(mimeType: string, takes: ModelPartTypes | undefined): ModelPart | null {
  if (takes?.images.includes(mimeType)) return "image";
  if (takes?.documents.includes(mimeType)) return "document";
  return null;
}

/** Why a part of this size may not go (null: it may), given the run's bytes left. */
function overBy(part: ModelPart, bytes: number, left: number): string | null {
  if (part === "image" && bytes > MODEL_IMAGE_MAX_BYTES)
    return `is over the ${sizeText(MODEL_IMAGE_MAX_BYTES)} limit for an image`;
  if (bytes <= left) return null;
  const limit = `the ${sizeText(MODEL_PARTS_MAX_BYTES_PER_RUN)} limit for files sent with one message`;
  return left === MODEL_PARTS_MAX_BYTES_PER_RUN ? `is over ${limit}` : `would pass ${limit}`;
}

/** `application/pdf` of `Application/PDF; name=x`: the type an API compares, without parameters. */
function bareType(mimeType: string): string {
  return (mimeType.split(";")[0] ?? "").trim().toLowerCase();
}
