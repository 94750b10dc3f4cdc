import { isSessionFilePath } from "../../protocol/session-files";

/**
 * An imported message's media blocks (src/model/inbound-media.ts: `media: { kind, key }`) name
 * bucket keys under the SOURCE tenant's prefix. Every imported message passes here before it is
 * written: a block's key keeps only its path under the session (`media/…`, from its last
 * `/media/` on: chat media keys are `<tenant>/<session>/media/inbound/<name>`) and is placed under
 * the importing session's own prefix, where the page's file chunks land. A key with no such path
 * loses its `key` (the block stays, described, pointing nowhere): an imported message never
 * names another tenant's or another session's file.
 */
export function withImportedMediaKeys<M extends { content?: unknown }>(messages: M[], sessionPrefix: string): M[] {
  return messages.map((message) => {
    if (!Array.isArray(message.content) || !message.content.some(hasMediaKey)) return message;
    const content = message.content.map((block) =>
      hasMediaKey(block) ? { ...block, media: importedMedia(block.media, sessionPrefix) } : block,
    );
    return { ...message, content };
  });
}

/** A media key's path under its session (`media/inbound/x.jpg`), or null when it has none. */
export function sessionRelativeMediaPath(key: string): string | null {
  const at = key.startsWith("media/") ? 0 : key.lastIndexOf("/media/") + 1;
  if (at === 0 && !key.startsWith("media/")) return null;
  const path = key.slice(at);
  return isSessionFilePath(path) ? path : null;
}

type MediaRef = Record<string, unknown> & { key: unknown };

function importedMedia(media: MediaRef, sessionPrefix: string): Record<string, unknown> {
  const { key, ...rest } = media;
  const path = typeof key === "string" ? sessionRelativeMediaPath(key) : null;
  return path ? { ...rest, key: `${sessionPrefix}${path}` } : rest;
}

function hasMediaKey(block: unknown): block is { media: MediaRef } {
  if (typeof block !== "object" || block === null) return false;
  const media = (block as { media?: unknown }).media;
  return typeof media === "object" && media !== null && "key" in media;
}
