import type { MeteredBucket } from "../../metering/metered-bucket";
import type { BoundCredential } from "../../policy/bound-credential";
import { guardedFetch } from "../../policy/guarded-fetch";
import type { OutboundPolicy } from "../../policy/outbound-url";

/** A platform file download that takes longer is given up (the turn goes on without the file). */
export const MEDIA_FETCH_TIMEOUT_MS = 60_000;
/**
 * A download without `content-length` is read into memory before it is stored (R2 needs a
 * stream's length up front): at most this much, whatever the limit, so it stays far inside an
 * isolate's 128 MB. Telegram's and Slack's file servers send the length.
 */
export const UNSIZED_MEDIA_MAX_BYTES = 32 * 1024 * 1024;

export type FetchedMedia =
  | { ok: true; bytes: number; mimeType: string }
  | { ok: false; reason: "too_large" | "failed"; bytes: number | undefined; error: string };

/**
 * Downloads one platform file into the bucket at `key`, the one way every channel's file is
 * fetched: through the outbound guard, never past `maxBytes` (a `content-length` over it is
 * refused before a byte is read; the stream is counted as it arrives and cancelled at the
 * limit, so a server that lies about or omits the length costs no more than the limit), and
 * idempotent (a key already stored is not fetched again: a repeat after a crash finds it). With
 * a `content-length` the body streams into the bucket; without one it is read bounded first
 * (R2 needs a stream's length up front), up to UNSIZED_MEDIA_MAX_BYTES.
 */
export async function fetchIntoBucket(input: {
  bucket: MeteredBucket;
  key: string;
  url: string;
  headers: Record<string, string>;
  outbound: OutboundPolicy;
  /** The credentials the URL or headers attach: held to their store entries' hosts by guardedFetch. */
  carries?: readonly BoundCredential[];
  maxBytes: number;
  /** The platform's word for the type (a document's mime_type): it wins over the download's header. */
  mimeType: string | undefined;
  /** The type when neither the platform nor the download says one (Telegram photos are JPEG). */
  fallbackMimeType?: string | undefined;
}): Promise<FetchedMedia> {
  const stored = await input.bucket.head(input.key);
  if (stored) return { ok: true, bytes: stored.size, mimeType: stored.httpMetadata?.contentType ?? mimeOf(input) };
  const response = await guardedFetch(
    input.url,
    { headers: input.headers, signal: AbortSignal.timeout(MEDIA_FETCH_TIMEOUT_MS) },
    input.outbound,
    input.carries,
  );
  if (!response.ok || !response.body) {
    await response.body?.cancel().catch(() => undefined);
    return { ok: false, reason: "failed", bytes: undefined, error: `download answered ${response.status}` };
  }
  const mimeType = input.mimeType ?? contentTypeOf(response) ?? mimeOf(input);
  const announced = Number(response.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(announced) && announced > input.maxBytes) {
    await response.body.cancel().catch(() => undefined);
    return { ok: false, reason: "too_large", bytes: announced, error: "content-length over the limit" };
  }
  const sized = Number.isFinite(announced);
  const counted = countedBody(
    response.body,
    sized ? input.maxBytes : Math.min(input.maxBytes, UNSIZED_MEDIA_MAX_BYTES),
  );
  try {
    if (sized) {
      const fixed = new FixedLengthStream(announced);
      const [, stored] = await Promise.all([
        counted.stream.pipeTo(fixed.writable),
        input.bucket.put(input.key, fixed.readable, { httpMetadata: { contentType: mimeType } }),
      ]);
      return { ok: true, bytes: stored?.size ?? announced, mimeType };
    }
    const bytes = await new Response(counted.stream).arrayBuffer();
    await input.bucket.put(input.key, bytes, { httpMetadata: { contentType: mimeType } });
    return { ok: true, bytes: bytes.byteLength, mimeType };
  } catch (error) {
    if (counted.overLimit()) return { ok: false, reason: "too_large", bytes: undefined, error: "over the limit" };
    return { ok: false, reason: "failed", bytes: undefined, error: (error as Error).message };
  }
}

/** The body, erroring (and cancelling the download) as soon as it passes `maxBytes`. */
function countedBody(body: ReadableStream<Uint8Array>, maxBytes: number) {
  let seen = 0;
  let over = false;
  const stream = body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > maxBytes) {
          over = true;
          controller.error(new Error("over the limit"));
          return;
        }
        controller.enqueue(chunk);
      },
    }),
  );
  return { stream, overLimit: () => over };
}

function contentTypeOf(response: Response): string | undefined {
  const type = response.headers.get("content-type")?.split(";")[0]?.trim();
  return type && type !== "application/octet-stream" ? type : undefined;
}

function mimeOf(input: { mimeType: string | undefined; fallbackMimeType?: string | undefined }): string {
  return input.mimeType ?? input.fallbackMimeType ?? "application/octet-stream";
}
