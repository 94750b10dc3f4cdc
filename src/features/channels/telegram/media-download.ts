import type { MediaRef, MediaSource } from "../inbound-media";
import type { TelegramBotApi } from "./bot-api";
import { type TelegramFile, telegramMediaSchema } from "./media-text";

/**
 * The files of a Telegram message as the inbox fetches them (issue 46 item 2): the largest
 * photo size, a sticker, a document, a voice note, audio, video, a video note or an animation,
 * each by its `file_id`; downloaded with `getFile` + `<apiRoot>/file/bot<token>/<file_path>`
 * (the URL carries the token: the source names it for redaction).
 */

/** Telegram re-encodes photos as JPEG. */
const PHOTO_MIME = "image/jpeg";
/** A static sticker is WebP (animated ones are .tgs / .webm and say so in their path). */
const STICKER_MIME = "image/webp";

export function telegramMediaRefs(message: unknown): MediaRef[] {
  const parsed = telegramMediaSchema.safeParse(message);
  if (!parsed.success) return [];
  const media = parsed.data;
  const refs: MediaRef[] = [];
  const largest = media.photo?.reduce((a, b) => (b.width * b.height > a.width * a.height ? b : a));
  if (largest?.file_id)
    refs.push(withSize({ kind: "image", fileId: largest.file_id, fallbackMimeType: PHOTO_MIME }, largest));
  const sticker = media.sticker && fileRef("sticker", media.sticker);
  if (sticker) refs.push({ fallbackMimeType: STICKER_MIME, ...sticker });
  // The Bot API sends a GIF as both `animation` and `document`: one file for it.
  const document = media.animation ? undefined : media.document;
  const documentRef = document && fileRef("document", document);
  if (documentRef) refs.push(documentRef);
  for (const [kind, f] of [
    ["audio", media.voice],
    ["audio", media.audio],
    ["video", media.video],
    ["video", media.video_note],
    ["video", media.animation],
  ] as const) {
    const ref = f && fileRef(kind, f);
    if (ref) refs.push(ref);
  }
  return refs;
}

/** The bot's files, located by `getFile`. */
export function telegramMediaSource(bot: TelegramBotApi): MediaSource {
  return {
    credentials: bot.credentials,
    carries: [bot.boundCredential],
    locate: async (ref) => ({ url: await bot.fileUrl(ref.fileId) }),
  };
}

/** A file the message names by id; none without one. */
function fileRef(kind: MediaRef["kind"], f: TelegramFile): MediaRef | undefined {
  if (!f.file_id) return undefined;
  return withSize(
    {
      kind,
      fileId: f.file_id,
      ...(f.mime_type ? { mimeType: f.mime_type } : {}),
      ...(f.file_name ? { fileName: f.file_name } : {}),
    },
    f,
  );
}

function withSize(ref: MediaRef, f: { file_size?: number | undefined }): MediaRef {
  return f.file_size !== undefined ? { ...ref, announcedBytes: f.file_size } : ref;
}
