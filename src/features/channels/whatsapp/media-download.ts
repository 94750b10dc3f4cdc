import { z } from "zod";
import type { BoundCredential } from "../../../policy/bound-credential";
import type { InboundDecision } from "../adapter";
import type { MediaRef, MediaSource } from "../inbound-media";
import type { WhatsappMessage } from "./events";

/**
 * The files of a WhatsApp message as the inbox fetches them (issue 46): an image, a sticker, a
 * document, audio or a video, each by its media id. The Graph API answers the id with a short-
 * lived URL (`GET <apiRoot>/<media id>`), downloaded with the same access token
 * (graph-api.ts `mediaLocation`), through `fetchIntoBucket` like Telegram's.
 */

const mediaObject = z.looseObject({
  id: z.string(),
  mime_type: z.string().optional(),
  filename: z.string().optional(),
});

const KINDS = [
  ["image", "image"],
  ["sticker", "sticker"],
  ["document", "document"],
  ["audio", "audio"],
  ["video", "video"],
] as const;

export function whatsappMediaRefs(message: WhatsappMessage): MediaRef[] {
  const refs: MediaRef[] = [];
  const fields = message as Record<string, unknown>;
  for (const [field, kind] of KINDS) {
    const parsed = mediaObject.safeParse(fields[field]);
    if (!parsed.success) continue;
    const file = parsed.data;
    refs.push({
      kind,
      fileId: file.id,
      ...(file.mime_type ? { mimeType: file.mime_type.split(";")[0]!.trim() } : {}),
      ...(file.filename ? { fileName: file.filename } : {}),
    });
  }
  return refs;
}

/** The business number's files, located by the Graph API. */
export function whatsappMediaSource(api: {
  credentials: readonly string[];
  boundCredential: BoundCredential;
  mediaLocation(mediaId: string): Promise<{ url: string; headers: Record<string, string> }>;
}): MediaSource {
  return {
    credentials: api.credentials,
    carries: [api.boundCredential],
    locate: (ref) => api.mediaLocation(ref.fileId),
  };
}

/** `[media: image image/jpeg]`, `[media: document report.pdf application/pdf]`: what the transcript says of a file. */
export function whatsappMediaLines(refs: readonly MediaRef[]): string[] {
  return refs.map((ref) => `[media: ${[ref.kind, ref.fileName, ref.mimeType].filter(Boolean).join(" ")}]`);
}

/** A turn of a message with files: they are named (fetched by the inbox before the run), with the caption and the message id. */
export function withWhatsappMedia(
  decision: InboundDecision,
  message: WhatsappMessage,
  caption: string,
): InboundDecision {
  if (decision.action !== "turn") return decision;
  const media = whatsappMediaRefs(message);
  if (media.length === 0) return decision;
  return { action: "turn", turn: { ...decision.turn, media, captionText: caption, messageId: message.id } };
}
