/** The kinds of file a chat message carries (OpenClaw's `media[].kind`). */
export type MediaKind = "image" | "sticker" | "document" | "audio" | "video";

/** A chat message's file as stored in the ATTACHMENTS bucket for its run (src/features/channels/inbound-media.ts). */
export type InboundMedia = {
  /** The bucket key (under the session's prefix). */
  key: string;
  kind: MediaKind;
  mimeType: string;
  bytes: number;
  fileName?: string;
};

/** The file's path as the model is told it (`media/inbound/<file>`: the key below the session's prefix). */
export function mediaPath(media: Pick<InboundMedia, "key">): string {
  return media.key.slice(media.key.indexOf("/media/") + 1);
}

/** Whether a model that takes images gets this file as an image part (an image or a sticker in an image format). */
export function isImageMedia(media: InboundMedia): boolean {
  return (media.kind === "image" || media.kind === "sticker") && media.mimeType.startsWith("image/");
}

/**
 * The transcript's reference to a stored file, a content block after the message's text:
 * OpenClaw's image block as chat.history shows it (`type`, `mimeType`, `omitted`, `bytes`), with
 * the bucket key and kind under `media`; other files as a `file` block of the same form.
 */
export function mediaBlock(media: InboundMedia): Record<string, unknown> & { type: string } {
  return {
    type: isImageMedia(media) ? "image" : "file",
    mimeType: media.mimeType,
    omitted: true,
    bytes: media.bytes,
    ...(media.fileName ? { fileName: media.fileName } : {}),
    media: { kind: media.kind, key: media.key },
  };
}
