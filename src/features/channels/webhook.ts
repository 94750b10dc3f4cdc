import type { OutboundPolicy } from "../../policy/outbound-url";
import type { TenantConfig } from "../../protocol/config";
import { announcesTooLarge, BODY_TOO_LARGE, discardBody, readBoundedText } from "../../util/bounded-body";
import type { SecretResolver } from "./channel-registry";

/**
 * A platform's inbound webhook, seen from the platform's folder: the route
 * (features/channels/channel-routes.ts) hands every request under a tenant to each platform in
 * PLATFORMS; the platform that serves the path verifies it and names the updates it carries; the
 * route commits those to the tenant's channel inbox and only then sends the answer. So a new
 * platform adds its handler to its descriptor and no route.
 */

/** An update is a few KB; a body past this is refused before it is read further, parsed or stored. */
export const MAX_UPDATE_BYTES = 1_000_000;

/** What a webhook handler reads of the request: no framework types, so the handler is testable alone. */
export type WebhookRequest = {
  method: string;
  /** The path under the tenant's base URL (`/telegram-webhook`). */
  path: string;
  headers: Headers;
  /** A query parameter (WhatsApp's `hub.challenge`), or null. */
  query(name: string): string | null;
  /** Whether `content-length` announces a body over MAX_UPDATE_BYTES. */
  announcesTooLarge(): boolean;
  /** The body read up to MAX_UPDATE_BYTES (the rest discarded), or BODY_TOO_LARGE. */
  text(): Promise<string | typeof BODY_TOO_LARGE>;
  /** Cancels the body unread: a request refused on its headers is answered without waiting for its upload. */
  discard(): void;
  /** Whether the body was cut off (discarded, or read past the limit): the connection cannot carry another request. */
  readonly bodyRefused: boolean;
};

/** One update to commit: its id is the dedupe key and the root of its run id. */
export type AcceptedUpdate = { updateId: string; body: string };

/** The handler's answer: the updates to commit first, then the response to send. */
export type WebhookAnswer = { response: Response; updates: AcceptedUpdate[] };

/** What a handler may use beside the request; `outbound` guards what it fetches (Teams' signing keys). */
export type WebhookContext = { config: TenantConfig; resolve: SecretResolver; nowMs: number; outbound: OutboundPolicy };

/** A platform's webhook handler; null: the request is not for this platform (not its path, or not configured). */
export type WebhookHandler = (request: WebhookRequest, context: WebhookContext) => Promise<WebhookAnswer | null>;

/** The request seen through WebhookRequest, its body read bounded. */
export function webhookRequestOf(raw: Request, path: string): WebhookRequest {
  const url = new URL(raw.url);
  let refused = false;
  return {
    method: raw.method,
    path,
    headers: raw.headers,
    query: (name) => url.searchParams.get(name),
    announcesTooLarge: () => announcesTooLarge(raw.headers, MAX_UPDATE_BYTES),
    text: async () => {
      const body = await readBoundedText(raw, MAX_UPDATE_BYTES, "discard");
      if (body === BODY_TOO_LARGE) refused = true;
      return body;
    },
    discard: () => {
      refused = true;
      discardBody(raw);
    },
    get bodyRefused() {
      return refused;
    },
  };
}

/**
 * The answer as sent: a request whose body was cut off is answered with `connection: close`, so
 * the client does not send its next request on a connection the unread upload left unusable
 * (seen as "Network connection lost" on the next request of a keep-alive client).
 */
export function closingIfRefused(request: WebhookRequest, response: Response): Response {
  if (!request.bodyRefused || response.headers.get("connection") === "close") return response;
  const closing = new Response(response.body, response);
  closing.headers.set("connection", "close");
  return closing;
}

/** Whether a platform's config block serves `path`: present, not disabled, at its `webhookPath` or the default. */
export function servesPath(
  block: { enabled?: boolean; webhookPath?: string } | undefined,
  defaultPath: string,
  path: string,
): boolean {
  return !!block && block.enabled !== false && path === (block.webhookPath ?? defaultPath);
}

/** A text/plain answer with nothing to commit. */
export function plainAnswer(status: number, text: string | null, headers: Record<string, string> = {}): WebhookAnswer {
  return {
    response: new Response(text, { status, headers: { "content-type": "text/plain; charset=utf-8", ...headers } }),
    updates: [],
  };
}

/** The answer once `updates` are committed: 200, marked durable as OpenClaw's gateway marks it. */
export function acceptedAnswer(updates: AcceptedUpdate[], headers: Record<string, string> = {}): WebhookAnswer {
  return {
    response: new Response(null, { status: 200, headers: { ...headers, "x-openclaw-delivery-accepted": "durable" } }),
    updates,
  };
}

export { BODY_TOO_LARGE };
