import type { MeteredBucket } from "../metering/metered-bucket";
import { deleteAttachments, sessionAttachmentPrefix } from "./spawn-attachments";

/**
 * The files a session stored before its prefix escaped `/` and `%` (sessionAttachmentPrefix):
 * a key holding either kept its files under `<tenant>/<key>/` as it was, and its deletion and
 * export must still find them, or they stay in the bucket for good (counted in the tenant's
 * mediaBytesPerTenant, missing from the export). That old prefix is shared: under
 * `<tenant>/agent:main:a/b/` also sit the files of `agent:main:a/b/c` (the bug the escaping
 * fixed), so only the files of the shapes this service writes directly under a session's prefix
 * count as the session's own (isLegacyOwnFile). Every such shape starts with `media/`,
 * `.openclaw/` or `.import-staging/` and has a fixed depth, so a longer key's file (at least one
 * segment of the longer key before such a shape) never has one: which files are whose is known
 * from their paths alone.
 */

/** The shapes a session's own files have under its prefix: chat media, sub-agent attachments (and their manifest), import staging. */
const OWN_FILE_SHAPES = [
  // src/features/channels/inbound-media.ts mediaKey: `<channel>-<update>-<n>` and an extension.
  /^media\/inbound\/[A-Za-z0-9._-]+$/,
  // src/spawn/spawn-attachments.ts storeAttachments: a random UUID folder, file names without `/`.
  /^\.openclaw\/attachments\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\/[^/]+$/,
  // src/features/sessions/file-import.ts: a SHA-256 folder of numbered chunks.
  /^\.import-staging\/[0-9a-f]{64}\/\d+$/,
];

/** Whether `path` (relative to a session's legacy prefix) is one of that session's own files. */
export function isLegacyOwnFile(path: string): boolean {
  return OWN_FILE_SHAPES.some((shape) => shape.test(path));
}

/**
 * The prefix a session's files had before the escaping, when it differs from today's (the key
 * holds `/` or `%`); null when there is none, or when it is ambiguous: a key without `/` whose
 * every `%` starts `%25` or `%2F` (`agent:main:a%2Fb`) had the prefix that is today the escaped
 * prefix of another key (`agent:main:a/b`), whose files have the same shapes. Those are left.
 */
export function legacyAttachmentPrefix(tenantId: string, key: string): string | null {
  if (!/[/%]/.test(key)) return null;
  if (!key.includes("/") && /^(?:[^%]|%25|%2F)*$/.test(key)) return null;
  return `${tenantId}/${key}/`;
}

/** The folders every file a session writes under its prefix is in (chat media, spawns, imports and their staging). */
const OWN_FOLDERS = ["media/", ".openclaw/", ".import-staging/"] as const;

/** Whether `path` (under a session's prefix today) is in one of the session's own folders. */
export function isInOwnFolder(path: string): boolean {
  return OWN_FOLDERS.some((folder) => path.startsWith(folder));
}

/**
 * Deletes a session's stored files: those in its own folders under its prefix (elsewhere under
 * `<tenant>/agent:main:a/` lie the old files of `agent:main:a/b`, kept for that session), and its
 * own files under its legacy prefix.
 */
export async function deleteSessionAttachments(
  bucket: MeteredBucket | undefined,
  tenantId: string,
  key: string,
): Promise<void> {
  await deleteAttachments(bucket, sessionAttachmentPrefix(tenantId, key), isInOwnFolder);
  const legacy = legacyAttachmentPrefix(tenantId, key);
  if (legacy) await deleteAttachments(bucket, legacy, isLegacyOwnFile);
}
