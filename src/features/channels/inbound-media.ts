import type { DeliveryTarget } from "../../model/delivery";
import { type InboundMedia, type MediaKind, mediaPath } from "../../model/inbound-media";
import type { BoundCredential } from "../../policy/bound-credential";
import type { OutboundPolicy } from "../../policy/outbound-url";
import type { TenantConfig } from "../../protocol/config";
import { redactCredentials } from "../../secrets/redact-credentials";
import { sessionAttachmentPrefix } from "../../spawn/spawn-attachments";
import { sizeText } from "../../util/size-text";
import { fetchIntoBucket } from "./media-fetch";

/**
 * A chat message's files, fetched before its run starts (issue 46 item 2): each file the
 * platform names is downloaded through the outbound guard into the ATTACHMENTS bucket under the
 * session's prefix (deleting the session or the tenant deletes it), bounded by the tenant's
 * `mediaBytesPerFile`. The object key derives from the update, so a crash mid-download repeats
 * the download into the same key, never a second turn. What the model is told follows OpenClaw:
 * `[media attached: <file> (<mime>)]` lines before the text; a failed download says
 * OpenClaw's warning to the chat (once: its outbox key is the update's) and the turn goes on as
 * `[media unavailable: download failed]`.
 */

/** A file a message names, as the platform identifies it (Telegram's file_id). */
export type MediaRef = {
  kind: MediaKind;
  fileId: string;
  mimeType?: string;
  /** The type when neither the platform nor the download names one (Telegram photos: JPEG). */
  fallbackMimeType?: string;
  fileName?: string;
  /** The size the platform announced (Telegram's `file_size`), checked before any download. */
  announcedBytes?: number;
};

/** Where a platform's file is downloaded from: a URL (and headers) carrying the bot's credentials. */
export type MediaSource = {
  /** Every secret the URL or headers carry: redacted from any error kept or logged. */
  readonly credentials: readonly string[];
  /** The bound credentials its downloads attach: each download is held to their hosts (guardedFetch). */
  readonly carries: readonly BoundCredential[];
  locate(ref: MediaRef): Promise<{ url: string; headers?: Record<string, string> }>;
};

/** OpenClaw's reply when a file could not be downloaded (recorded from 2026.9.6). */
export const MEDIA_FAILED_TEXT = "⚠️ Failed to download media. Please try again.";
/** The delivery kind of a media warning (sent through the inbox's outbox as plain text). */
export const MEDIA_WARNING_KIND = "media-warning";
/** What the turn says in place of a file that could not be downloaded (OpenClaw's). */
export const MEDIA_UNAVAILABLE_TEXT = "[media unavailable: download failed]";
/** What the turn says in place of a file over the size limit. */
export const MEDIA_TOO_LARGE_TEXT = "[media unavailable: file too large]";
/** What the turn says in place of a file refused because the tenant's stored media reached `mediaBytesPerTenant`. */
export const MEDIA_STORAGE_FULL_TEXT = "[media unavailable: media storage full]";

/** The chat's message when a file is over the limit: what it was and what the limit is. */
export function mediaTooLargeText(bytes: number | undefined, maxBytes: number): string {
  const size = bytes !== undefined ? ` (${sizeText(bytes)})` : "";
  return `⚠️ File too large${size}. The limit is ${sizeText(maxBytes)}.`;
}

/** What of a chat turn the files concern (src/features/channels/adapter.ts's ChannelTurn has these). */
export type MediaTurn = {
  sessionKey: string;
  text: string;
  captionText?: string;
  media?: MediaRef[];
  replyTarget: DeliveryTarget;
  /** The platform's id of the message: the warning answers it (Telegram's `message_id`). */
  messageId?: number | string;
};

export type MediaPorts = {
  bucket: R2Bucket | undefined;
  tenantId: string;
  outbound: OutboundPolicy;
  /** The tenant's `mediaBytesPerFile` in force for the channel (mediaMaxBytes). */
  maxBytes(channel: string): Promise<number>;
  /**
   * What the tenant may still store under its `mediaBytesPerTenant` (src/domain/media-quota.ts): a file
   * past it is refused as a failed download (OpenClaw's warning; it has no text of its own).
   */
  tenantBytesLeft(): Promise<number>;
  /** Sends a warning to the turn's chat once (the inbox's outbox; the key makes a repeat a no-op). */
  warn(input: { idempotencyKey: string; target: DeliveryTarget; message: string }): void;
  log(event: string, fields: Record<string, unknown>): void;
};

/** A turn with its files fetched: the text the model gets, and the stored files the run carries. */
export type PreparedMedia = { modelText: string; media: InboundMedia[]; transcriptText: string };

export async function prepareMedia(
  ports: MediaPorts,
  source: MediaSource | null,
  turn: MediaTurn,
  update: { channel: string; updateId: string },
): Promise<PreparedMedia | null> {
  const refs = turn.media ?? [];
  if (refs.length === 0 || !source || !ports.bucket) return null;
  const maxBytes = await ports.maxBytes(update.channel);
  let tenantLeft = await ports.tenantBytesLeft();
  const media: InboundMedia[] = [];
  const lines: string[] = [];
  for (const [index, ref] of refs.entries()) {
    const key = mediaKey(ports.tenantId, turn.sessionKey, update, index, ref);
    // The tenant's room bounds this file's download as its own limit does (a stored repeat is found, not fetched).
    const fileMax = Math.min(maxBytes, tenantLeft);
    const fetched = await fetchRef(ports, source, ref, key, maxBytes, fileMax);
    if (fetched.ok) {
      tenantLeft = Math.max(0, tenantLeft - fetched.bytes);
      const stored: InboundMedia = {
        key,
        kind: ref.kind,
        mimeType: fetched.mimeType,
        bytes: fetched.bytes,
        ...(ref.fileName ? { fileName: ref.fileName } : {}),
      };
      media.push(stored);
      lines.push(attachedLine(stored));
      continue;
    }
    // Over the tenant's room but within the file limit: the tenant's storage is what refused it.
    const storageFull =
      fetched.reason === "too_large" &&
      fileMax < maxBytes &&
      !(fetched.bytes !== undefined && fetched.bytes > maxBytes);
    const tooLarge = fetched.reason === "too_large" && !storageFull;
    ports.warn({
      idempotencyKey: `media:${update.channel}:${update.updateId}:${index}`,
      target: warningTarget(turn),
      message: tooLarge ? mediaTooLargeText(fetched.bytes, maxBytes) : MEDIA_FAILED_TEXT,
    });
    ports.log("channel.media_failed", {
      tenant: ports.tenantId,
      channel: update.channel,
      update: update.updateId,
      reason: storageFull ? "tenant_media_full" : fetched.reason,
      ...(storageFull ? { tenantBytesLeft: tenantLeft } : {}),
      error: redactCredentials(fetched.error, source.credentials),
    });
    lines.push(storageFull ? MEDIA_STORAGE_FULL_TEXT : tooLarge ? MEDIA_TOO_LARGE_TEXT : MEDIA_UNAVAILABLE_TEXT);
  }
  const said = turn.captionText ?? "";
  const modelText = [...lines, said].filter((part) => part.trim() !== "").join("\n");
  // A failed file's turn keeps OpenClaw's placeholder in the transcript; a stored one its description.
  const failed = lines.filter((line) => !line.startsWith("[media attached"));
  const transcriptText = media.length === 0 ? [...failed, said].filter((p) => p.trim() !== "").join("\n") : turn.text;
  return { modelText, media, transcriptText };
}

/** The turn's chat, answering its message when the platform numbers messages (Telegram). */
function warningTarget(turn: MediaTurn): DeliveryTarget {
  return typeof turn.messageId === "number"
    ? { ...turn.replyTarget, replyToMessageId: turn.messageId }
    : turn.replyTarget;
}

/** One file: refused at once when its announced size is over the file limit, else fetched under `fetchMax`. */
async function fetchRef(
  ports: MediaPorts,
  source: MediaSource,
  ref: MediaRef,
  key: string,
  maxBytes: number,
  fetchMax: number,
) {
  if (ref.announcedBytes !== undefined && ref.announcedBytes > maxBytes)
    return { ok: false as const, reason: "too_large" as const, bytes: ref.announcedBytes, error: "announced size" };
  try {
    const located = await source.locate(ref);
    return await fetchIntoBucket({
      bucket: ports.bucket!,
      key,
      url: located.url,
      headers: located.headers ?? {},
      outbound: ports.outbound,
      carries: source.carries,
      maxBytes: fetchMax,
      mimeType: ref.mimeType,
      fallbackMimeType: ref.fallbackMimeType,
    });
  } catch (error) {
    return { ok: false as const, reason: "failed" as const, bytes: undefined, error: (error as Error).message };
  }
}

/**
 * `<tenant>/<session key>/media/inbound/<channel>-<update>-<n>`: under the session's prefix (its
 * deletion deletes the file) and derived from the update alone (a repeat finds the same key).
 */
export function mediaKey(
  tenantId: string,
  sessionKey: string,
  update: { channel: string; updateId: string },
  index: number,
  ref: MediaRef,
): string {
  const name = `${update.channel}-${update.updateId}-${index}`.replace(/[^A-Za-z0-9._-]/g, "_");
  return `${sessionAttachmentPrefix(tenantId, sessionKey)}media/inbound/${name}${extensionOf(ref)}`;
}

/** OpenClaw's line for an attached file: `[media attached: <path> (<mime>)]`, a document's name quoted after. */
export function attachedLine(media: InboundMedia): string {
  const name = media.fileName ? ` ${JSON.stringify(media.fileName)}` : "";
  return `[media attached: ${mediaPath(media)} (${media.mimeType})${name}]`;
}

function extensionOf(ref: MediaRef): string {
  const fromName = /\.[A-Za-z0-9]{1,8}$/.exec(ref.fileName ?? "")?.[0];
  if (fromName) return fromName.toLowerCase();
  const byMime: Record<string, string> = { "image/jpeg": ".jpg", "image/png": ".png", "image/webp": ".webp" };
  return byMime[ref.mimeType ?? ref.fallbackMimeType ?? ""] ?? "";
}

/**
 * The file limit of a channel: the tenant's `mediaBytesPerFile` (under the operator's ceiling),
 * lowered by the channel's own `mediaMaxMb` (OpenClaw's key) when it is set lower.
 */
export function mediaMaxBytes(limit: number, config: TenantConfig, channel: string): number {
  const block = (config.channels as Record<string, { mediaMaxMb?: unknown } | undefined> | undefined)?.[channel];
  const mb = block?.mediaMaxMb;
  return typeof mb === "number" && mb > 0 ? Math.min(limit, Math.floor(mb * MIB)) : limit;
}

const MIB = 1024 * 1024;
