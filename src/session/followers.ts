import { FOLLOW_HEADER, type FollowQuery } from "../contracts/headers";
import type { Page } from "../contracts/session-api";
import { HISTORY_READ_MAX_BYTES, type ReadQuery } from "../contracts/session-api";
import type { MessageRecord } from "../model/message-record";
import { errorResponse } from "../protocol/http";
import { historyPageJson } from "../render/history-json";

/** How often a follower gets a keepalive comment (and its token is re-checked). */
export const KEEPALIVE_MS = 15_000;
/** The first `event: history` of a follow without a limit carries at most this many messages. */
export const FOLLOW_DEFAULT_LIMIT = 1000;

/** A follower is `ready` once its token was confirmed and its first page written. */
type Follower = { query: FollowQuery; writer: WritableStreamDefaultWriter<Uint8Array>; ready: boolean };

/** What opening a follow gives: the stream, or why not. */
export type FollowOpened = Response | "not_found" | "revoked";

/**
 * SSE streams following one session (`GET /sessions/{key}/history` with
 * `Accept: text/event-stream` or `follow=1`). They live in memory: an open stream keeps
 * the session object awake, and a client reconnects (`retry: 1000`) if it is evicted.
 *
 * A follow opened with a token is registered with the tenant (`confirmToken`) before its first
 * byte, so revoking the token ends it at once (`endToken`); the keepalive re-confirms, and a
 * failed check closes the stream (fail closed: the client reconnects and authenticates again).
 */
export class Followers {
  private readonly followers = new Set<Follower>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private readonly encoder = new TextEncoder();

  constructor(
    private readonly read: (query: ReadQuery) => Page | null,
    private readonly confirmToken: (tokenId: string, sessionKey: string) => Promise<boolean>,
  ) {}

  /** The follow request the worker forwarded (FOLLOW_HEADER carries its query); `ready` runs before it opens. */
  async serve(request: Request, ready: () => Promise<void>): Promise<Response> {
    const query = JSON.parse(request.headers.get(FOLLOW_HEADER) ?? "null") as FollowQuery | null;
    if (!query) return new Response("not found", { status: 404 });
    await ready();
    const opened = await this.open(query);
    if (opened instanceof Response) return opened;
    if (opened === "revoked") return errorResponse(401, "unauthorized", "Unauthorized");
    return errorResponse(404, "not_found", `Session not found: ${query.sessionKey}`);
  }

  /** Opens a stream: `retry`, then the current page as `event: history`. */
  async open(query: FollowQuery): Promise<FollowOpened> {
    if (!this.readTail(query)) return "not_found";
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const follower: Follower = { query, writer: writable.getWriter(), ready: false };
    // Registered before the token is confirmed: a revoke that lands meanwhile drops it.
    this.followers.add(follower);
    if (query.tokenId) {
      const confirmed = await this.confirmToken(query.tokenId, query.sessionKey).catch(() => false);
      if (!confirmed || !this.followers.has(follower)) {
        this.drop(follower);
        return "revoked";
      }
    }
    // Read after the confirmation so messages appended meanwhile are in the first page.
    const page = this.readTail(query);
    if (!page) {
      this.drop(follower);
      return "not_found";
    }
    follower.ready = true;
    this.write(follower, `retry: 1000\n\n${this.historyEvent(query, page)}`);
    this.ensureKeepalive();
    return new Response(readable, {
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache",
        connection: "keep-alive",
      },
    });
  }

  get size(): number {
    return this.followers.size;
  }

  /** New messages: one `event: message` each, or a fresh `history` page for paged follows. */
  appended(messages: MessageRecord[]): void {
    for (const follower of this.followers) {
      if (!follower.ready) continue;
      const { query } = follower;
      if (query.limit !== undefined || query.cursorSeq !== undefined) {
        const page = this.readTail(query);
        if (page) this.write(follower, this.historyEvent(query, page));
        continue;
      }
      let chunk = "";
      for (const message of messages) {
        if (!query.includeTools && message.role === "toolResult") continue;
        const payload = `{"sessionKey":${JSON.stringify(query.sessionKey)},"message":${message.json},"messageId":${JSON.stringify(message.id)},"messageSeq":${message.seq}}`;
        chunk += `event: message\ndata: ${payload}\n\n`;
      }
      if (chunk) this.write(follower, chunk);
    }
  }

  /** Ends the streams opened with a token (it was revoked); answers how many. */
  endToken(tokenId: string): number {
    let ended = 0;
    for (const follower of [...this.followers]) {
      if (follower.query.tokenId !== tokenId) continue;
      this.drop(follower);
      ended++;
    }
    return ended;
  }

  /** Ends every stream (session deleted). */
  closeAll(): void {
    for (const follower of [...this.followers]) this.drop(follower);
  }

  /** The page a follow starts with (and a paged follow is sent again). */
  private readTail(query: FollowQuery): Page | null {
    return this.read({
      direction: "tail",
      limit: query.limit ?? FOLLOW_DEFAULT_LIMIT,
      includeTools: query.includeTools,
      maxBytes: HISTORY_READ_MAX_BYTES,
      ...(query.cursorSeq !== undefined ? { cursorSeq: query.cursorSeq } : {}),
    });
  }

  private historyEvent(query: FollowQuery, page: Page): string {
    const oldest = page.messages[0];
    const json = historyPageJson({
      sessionKey: query.sessionKey,
      messages: page.messages,
      hasMore: page.hasMore,
      ...(page.hasMore && oldest ? { nextCursor: String(oldest.seq) } : {}),
    });
    return `event: history\ndata: ${json}\n\n`;
  }

  private write(follower: Follower, text: string): void {
    follower.writer.write(this.encoder.encode(text)).catch(() => this.drop(follower));
  }

  private drop(follower: Follower): void {
    if (!this.followers.delete(follower)) return;
    follower.writer.close().catch(() => undefined);
    if (this.followers.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  private ensureKeepalive(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.keepalive(), KEEPALIVE_MS);
  }

  /** Keepalive comment; the followers of a token that is gone (or cannot be checked) are closed. */
  private async keepalive(): Promise<void> {
    const checks = new Map<string, Promise<boolean>>();
    for (const follower of [...this.followers]) {
      if (!follower.ready) continue;
      const { tokenId, sessionKey } = follower.query;
      if (tokenId) {
        let check = checks.get(tokenId);
        if (!check) {
          check = this.confirmToken(tokenId, sessionKey).catch(() => false);
          checks.set(tokenId, check);
        }
        if (!(await check)) {
          this.drop(follower);
          continue;
        }
      }
      this.write(follower, ": keepalive\n\n");
    }
  }
}
