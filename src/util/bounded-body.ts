/**
 * The one way a request body is read, on every door (the JSON routes, hooks, the chat webhooks,
 * OAuth, MCP, the OpenAI routes): a `content-length` over the limit is refused before a byte is
 * read, and the stream is counted as it arrives and no longer read past the limit, so a body
 * without `content-length` (chunked) costs no more memory than the limit either. Whoever calls it
 * checks what can be checked without the body first (a secret header, a token), and says what
 * becomes of a refused body (RefusedBody).
 */

/** Too large: announced over the limit, or the stream passed it (it is cancelled there). */
export const BODY_TOO_LARGE = "too_large";

/** Whether the request announces a body over `maxBytes` (refused before anything is read). */
export function announcesTooLarge(headers: Headers, maxBytes: number): boolean {
  return Number(headers.get("content-length") ?? "0") > maxBytes;
}

/** Cancels a body that will not be read, so the answer goes out without waiting for the upload. */
export function discardBody(request: Request): void {
  if (request.body && !request.bodyUsed) request.body.cancel().catch(() => {});
}

/**
 * What becomes of the rest of a body refused as too large: `discard` cancels it (an
 * unauthenticated door: the answer goes out at once, the client may see its upload reset);
 * `drain` leaves it to the runtime, which reads and drops it unbuffered before answering (an
 * authenticated door: its client gets the 413 answer, not a reset).
 */
export type RefusedBody = "discard" | "drain";

/** The body's bytes, or BODY_TOO_LARGE past `maxBytes` (never holding more than the limit plus one chunk). */
export async function readBoundedBody(
  request: Request,
  maxBytes: number,
  refused: RefusedBody = "drain",
): Promise<Uint8Array | typeof BODY_TOO_LARGE> {
  if (announcesTooLarge(request.headers, maxBytes)) {
    if (refused === "discard") discardBody(request);
    return BODY_TOO_LARGE;
  }
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      if (refused === "discard") await reader.cancel().catch(() => {});
      else reader.releaseLock();
      return BODY_TOO_LARGE;
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const all = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return all;
}

/** The body as text (UTF-8, lenient), or BODY_TOO_LARGE past `maxBytes`. */
export async function readBoundedText(
  request: Request,
  maxBytes: number,
  refused: RefusedBody = "drain",
): Promise<string | typeof BODY_TOO_LARGE> {
  const bytes = await readBoundedBody(request, maxBytes, refused);
  return bytes === BODY_TOO_LARGE ? bytes : new TextDecoder().decode(bytes);
}
