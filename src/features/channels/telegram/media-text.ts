import { z } from "zod";

/**
 * The text a Telegram media message brings to its turn while the file itself is not yet fetched
 * (issue 46 item 2): a description line per attachment, as the issue words it for a model that
 * does not take the file (`[media: photo 1280×720 image/jpeg]`), then the caption. A sticker is
 * its emoji, as OpenClaw gives it. Without this a photo, document, voice note or sticker with no
 * caption was dropped as "no text". Pure: the message comes in, text goes out.
 */

const photoSize = z.looseObject({
  file_id: z.string().optional(),
  width: z.number(),
  height: z.number(),
  file_size: z.number().optional(),
});
const file = z.looseObject({
  file_id: z.string().optional(),
  file_size: z.number().optional(),
  mime_type: z.string().optional(),
  file_name: z.string().optional(),
  duration: z.number().optional(),
  width: z.number().optional(),
  height: z.number().optional(),
});
/** The media fields of a Bot API `Message` this service reads (all optional; unknown keys kept); media-download.ts reads the file ids. */
export const telegramMediaSchema = z.looseObject({
  photo: z.array(photoSize).optional(),
  document: file.optional(),
  voice: file.optional(),
  audio: file.optional(),
  video: file.optional(),
  video_note: file.optional(),
  animation: file.optional(),
  sticker: file.extend({ emoji: z.string().optional() }).optional(),
});
export type TelegramFile = z.infer<typeof file>;

/** Telegram sends photos as JPEG (the Bot API re-encodes them). */
const PHOTO_MIME = "image/jpeg";
/** What OpenClaw writes for a sticker without an emoji. */
const STICKER_PLACEHOLDER = "<media:sticker>";

/** One description line per attachment of the message, in Bot API field order; empty when none. */
export function telegramMediaLines(message: unknown): string[] {
  const parsed = telegramMediaSchema.safeParse(message);
  if (!parsed.success) return [];
  const media = parsed.data;
  const lines: string[] = [];
  const largest = media.photo?.reduce((a, b) => (b.width * b.height > a.width * a.height ? b : a));
  if (largest) lines.push(describe("photo", [`${largest.width}×${largest.height}`, PHOTO_MIME]));
  if (media.sticker) lines.push(media.sticker.emoji ?? STICKER_PLACEHOLDER);
  // The Bot API sends a GIF as both `animation` and `document`: one line for it.
  const files = [
    ["document", media.animation ? undefined : media.document],
    ["voice", media.voice],
    ["audio", media.audio],
    ["video", media.video],
    ["video note", media.video_note],
    ["animation", media.animation],
  ] as const;
  for (const [kind, f] of files) {
    if (!f) continue;
    const size = f.width && f.height ? `${f.width}×${f.height}` : undefined;
    const duration = f.duration !== undefined ? `${f.duration}s` : undefined;
    lines.push(describe(kind, [f.file_name, size, duration, f.mime_type]));
  }
  return lines;
}

/** The turn's text: the media lines, then the message's text or caption (either may be absent). */
export function telegramTurnText(message: { text?: string; caption?: string }): string {
  const said = message.text ?? message.caption ?? "";
  const lines = telegramMediaLines(message);
  return [...lines, said].filter((part) => part.trim() !== "").join("\n");
}

function describe(kind: string, facts: Array<string | undefined>): string {
  return `[media: ${[kind, ...facts.filter((f): f is string => !!f)].join(" ")}]`;
}
