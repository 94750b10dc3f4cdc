import { type InboundMedia, isImageMedia } from "../../model/inbound-media";
import { toBase64 } from "../../util/encoding";
import type { ContextImage, ContextMessage, RunnerRequest } from "./runner";

/**
 * A chat message's images as a model that takes images gets them (OpenAI Chat Completions'
 * `image_url` data URL, Anthropic's base64 `image` block): read from the ATTACHMENTS bucket when
 * the runner calls the model. An image larger than MODEL_IMAGE_MAX_BYTES, or gone from the
 * bucket, is left to its text line (`[media attached: …]`).
 */

/** OpenClaw's `agents.defaults.mediaMaxMb` for images given to the model (5 MB). */
export const MODEL_IMAGE_MAX_BYTES = 5 * 1024 * 1024;

/** The run's files a model is given as images. */
export function modelImages(media: InboundMedia[] | undefined): ContextImage[] {
  return (media ?? [])
    .filter((file) => isImageMedia(file) && file.bytes <= MODEL_IMAGE_MAX_BYTES)
    .map((file) => ({ key: file.key, mimeType: file.mimeType }));
}

/** Each context image's bytes as base64, by key (missing ones left out). */
export async function loadImages(request: Pick<RunnerRequest, "readAttachment">, context: ContextMessage[]) {
  const loaded = new Map<string, string>();
  for (const message of context) {
    if (message.role !== "user") continue;
    for (const image of message.images ?? []) {
      if (loaded.has(image.key)) continue;
      const bytes = await request.readAttachment(image.key);
      if (bytes && bytes.byteLength <= MODEL_IMAGE_MAX_BYTES) loaded.set(image.key, toBase64(bytes));
    }
  }
  return loaded;
}

/** A user message's images that were loaded, with their data. */
export function loadedImages(
  message: { images?: ContextImage[] },
  loaded: ReadonlyMap<string, string>,
): Array<ContextImage & { data: string }> {
  return (message.images ?? []).flatMap((image) => {
    const data = loaded.get(image.key);
    return data ? [{ ...image, data }] : [];
  });
}
