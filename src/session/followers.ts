import type { MessageRecord, Page } from "../contracts/session-api";
import { historyPageJson } from "./history-json";

/** What an SSE follower asked for (OpenClaw's history query). */
export type FollowQuery = {
  sessionKey: string;
  limit?: number;
  cursorSeq?: number;
  includeTools: boolean;
  tokenId?: string;
};

/** How often a follower gets a keepalive comment (and its token is re-checked). */
export const KEEPALIVE_MS = 15_000;
/** The first `event: history` of a follow without a limit carries at most this many messages. */
export const FOLLOW_DEFAULT_LIMIT = 1000;

type Follower = { query: FollowQuery; writer: WritableStreamDefaultWriter<Uint8Array> };

/**
 * SSE streams following one session (`GET /sessions/{key}/history` with
 * `Accept: text/event-stream` or `follow=1`). They live in memory: an open stream keeps
 * the session object awake, and a client reconnects (`retry: 1000`) if it is evicted.
 */
export class Followers {
  private readonly followers = new Set<Follower>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private readonly encoder = new TextEncoder();

  constructor(
    private readonly readTail: (query: FollowQuery) => Page | null,
    private readonly tokenValid: (tokenId: string) => Promise<boolean>,
  ) {}

  /** Opens a stream: `retry`, then the current page as `event: history`. */
  open(query: FollowQuery): Response | null {
    const page = this.readTail(query);
    if (!page) return null;
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const follower = { query, writer: writable.getWriter() };
    this.followers.add(follower);
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

  /** Ends every stream (session deleted). */
  closeAll(): void {
    for (const follower of this.followers) this.drop(follower);
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

  /** Keepalive comment; a follower whose token was revoked is closed. */
  private async keepalive(): Promise<void> {
    for (const follower of [...this.followers]) {
      const tokenId = follower.query.tokenId;
      if (tokenId && !(await this.tokenValid(tokenId).catch(() => true))) {
        this.drop(follower);
        continue;
      }
      this.write(follower, ": keepalive\n\n");
    }
  }
}
