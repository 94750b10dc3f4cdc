import type { BoundCredential } from "../../../policy/bound-credential";
import type { InboundDecision } from "../adapter";
import type { MediaRef, MediaSource } from "../inbound-media";
import type { LineMessage } from "./events";

/**
 * The file of a LINE message as the inbox fetches it (issue 46): an image, video, audio or file
 * message whose content LINE holds (`contentProvider.type` "line"; an "external" one is a URL of
 * the sender's, not fetched), downloaded from `GET /v2/bot/message/{id}/content` on
 * api-data.line.me with the channel access token (messaging-api.ts `contentLocation`), through
 * `fetchIntoBucket` like Telegram's.
 */

const KIND_OF_TYPE: Record<string, MediaRef["kind"]> = {
  image: "image",
  video: "video",
  audio: "audio",
  file: "document",
};

/** LINE serves images as JPEG when the download does not say. */
const IMAGE_MIME = "image/jpeg";

export function lineMediaRefs(message: LineMessage | undefined): MediaRef[] {
  const kind = message ? KIND_OF_TYPE[message.type] : undefined;
  if (!message || !kind) return [];
  const provider = (message.contentProvider as { type?: unknown } | undefined)?.type;
  if (provider !== undefined && provider !== "line") return [];
  const fileName = typeof message.fileName === "string" ? message.fileName : undefined;
  return [
    {
      kind,
      fileId: message.id,
      ...(kind === "image" ? { fallbackMimeType: IMAGE_MIME } : {}),
      ...(fileName ? { fileName } : {}),
    },
  ];
}

/** `[media: image]`, `[media: document report.pdf]`: what the transcript says of the file. */
export function lineMediaText(refs: readonly MediaRef[]): string {
  return refs.map((ref) => `[media: ${[ref.kind, ref.fileName].filter(Boolean).join(" ")}]`).join("\n");
}

/** The channel's message contents, located on LINE's data API. */
export function lineMediaSource(api: {
  credentials: readonly string[];
  boundCredential: BoundCredential;
  contentLocation(messageId: string): { url: string; headers: Record<string, string> };
}): MediaSource {
  return {
    credentials: api.credentials,
    carries: [api.boundCredential],
    locate: async (ref) => api.contentLocation(ref.fileId),
  };
}

/** A turn of a message with a file names it (fetched by the inbox before the run) and the message id. */
export function withLineMedia(decision: InboundDecision, message: LineMessage | undefined): InboundDecision {
  if (decision.action !== "turn" || !message) return decision;
  const media = lineMediaRefs(message);
  if (media.length === 0) return decision;
  return { action: "turn", turn: { ...decision.turn, media, captionText: "", messageId: message.id } };
}
