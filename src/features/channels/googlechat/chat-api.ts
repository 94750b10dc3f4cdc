import { chunkText } from "../telegram/format";

/**
 * A reply through the Chat API as the gateway sends it (SPEC channels-2 §4.2): a
 * `_<bot> is typing..._` placeholder POSTed first, the first chunk PATCHed into it
 * (`updateMask=text`), the rest POSTed; chunks of 4000 characters, Markdown unchanged, no
 * `thread` (space replies are not threaded, recorded). When the placeholder fails the reply
 * goes out as new messages only.
 */

export const CHAT_API_ROOT = "https://chat.googleapis.com";
export const GOOGLECHAT_CHUNK_CHARS = 4000;
export const GOOGLECHAT_TYPING_TEXT = "_OpenClaw is typing..._";

export type ChatApiFetch = (url: string, init: RequestInit) => Promise<Response>;

/** `spaces/<id>` of a delivery target `googlechat:spaces/<id>` (or bare), null for anything else. */
export function parseGoogleChatSpace(to: string): string | null {
  const space = to.startsWith("googlechat:") ? to.slice("googlechat:".length) : to;
  return /^spaces\/[A-Za-z0-9_-]+$/.test(space) ? space : null;
}

export function googleChatChunks(text: string): string[] {
  return chunkText(text, GOOGLECHAT_CHUNK_CHARS);
}

export class ChatApi {
  constructor(
    private readonly apiRoot: string,
    private readonly accessToken: () => Promise<string>,
    private readonly fetchApi: ChatApiFetch,
  ) {}

  /** POSTs a message; its resource name (`spaces/…/messages/…`). */
  async create(space: string, text: string): Promise<string> {
    const body = await this.call("POST", `${this.apiRoot}/v1/${space}/messages`, { text });
    return typeof body.name === "string" ? body.name : "";
  }

  /** Replaces a message's text. */
  async updateText(messageName: string, text: string): Promise<void> {
    await this.call("PATCH", `${this.apiRoot}/v1/${messageName}?updateMask=text`, { text });
  }

  /** One call, its status and JSON body answered as they came (a network failure throws). */
  async request(
    method: "POST" | "PATCH",
    url: string,
    payload: unknown,
  ): Promise<{ status: number; body: Record<string, unknown>; retryAfter: string | null }> {
    const response = await this.fetchApi(url, {
      method,
      headers: { authorization: `Bearer ${await this.accessToken()}`, "content-type": "application/json" },
      body: JSON.stringify(payload),
    });
    const text = await response.text();
    // A refusal's wait (a 429's Retry-After), for the platform's rate-limit rule.
    const retryAfter = response.headers.get("retry-after");
    try {
      const parsed: unknown = JSON.parse(text);
      const body = parsed && typeof parsed === "object" ? (parsed as Record<string, unknown>) : {};
      return { status: response.status, body, retryAfter };
    } catch {
      return { status: response.status, body: {}, retryAfter };
    }
  }

  /** The API's URL of a space's messages, or of one message (`spaces/…/messages/…`). */
  url(resource: string, query = ""): string {
    return `${this.apiRoot.replace(/\/+$/, "")}/v1/${resource}${query}`;
  }

  private async call(method: "POST" | "PATCH", url: string, payload: unknown): Promise<Record<string, unknown>> {
    const answer = await this.request(method, url, payload);
    if (answer.status < 200 || answer.status > 299) throw new Error(`Chat API ${method} answered ${answer.status}`);
    return answer.body;
  }
}

/**
 * Sends the parts of a reply from `fromPart` on (an outbox retry must not resend what went out);
 * `placeholder` is the typing message's name when one was posted.
 */
export async function sendGoogleChatParts(input: {
  api: ChatApi;
  space: string;
  parts: readonly string[];
  fromPart: number;
  placeholder?: string;
}): Promise<{ partsSent: number; error?: string }> {
  let sent = input.fromPart;
  try {
    for (; sent < input.parts.length; sent++) {
      const part = input.parts[sent] as string;
      if (sent === 0 && input.placeholder) await input.api.updateText(input.placeholder, part);
      else await input.api.create(input.space, part);
    }
    return { partsSent: sent };
  } catch (error) {
    return { partsSent: sent, error: error instanceof Error ? error.message : String(error) };
  }
}
