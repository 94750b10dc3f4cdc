/** Session transcripts as MCP resources: `openclaw://session/<key>[?beforeSeq=N&limit=M]`. */

export const TRANSCRIPT_URI_TEMPLATE = "openclaw://session/{sessionKey}{?beforeSeq,limit}";
const PREFIX = "openclaw://session/";
const MAX_URI_CHARS = 2048;

export type TranscriptRef = { sessionKey: string; beforeSeq?: number; limit?: number };

export function transcriptUri(sessionKey: string, page: { beforeSeq?: number; limit?: number } = {}): string {
  const query = new URLSearchParams();
  if (page.beforeSeq !== undefined) query.set("beforeSeq", String(page.beforeSeq));
  if (page.limit !== undefined) query.set("limit", String(page.limit));
  const search = query.size > 0 ? `?${query}` : "";
  return `${PREFIX}${encodeURIComponent(sessionKey)}${search}`;
}

/** The session and page a transcript URI names, or null when it is not one (or its numbers are not). */
export function parseTranscriptUri(uri: string): TranscriptRef | null {
  if (uri.length > MAX_URI_CHARS || !uri.startsWith(PREFIX)) return null;
  const rest = uri.slice(PREFIX.length);
  const queryAt = rest.indexOf("?");
  const rawKey = queryAt === -1 ? rest : rest.slice(0, queryAt);
  let sessionKey: string;
  try {
    sessionKey = decodeURIComponent(rawKey);
  } catch {
    return null;
  }
  if (sessionKey.trim() === "") return null;
  const query = new URLSearchParams(queryAt === -1 ? "" : rest.slice(queryAt + 1));
  const ref: TranscriptRef = { sessionKey };
  for (const name of ["beforeSeq", "limit"] as const) {
    const raw = query.get(name);
    if (raw === null) continue;
    if (!/^\d{1,15}$/.test(raw) || Number(raw) < 1) return null;
    ref[name] = Number(raw);
  }
  return ref;
}
