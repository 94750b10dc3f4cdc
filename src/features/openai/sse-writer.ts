/**
 * While nothing else was written for this long, a comment line goes out. OpenClaw sends none,
 * but a Worker learns that its client went away only from a failed write (the request's
 * signal fires too late to help), and a run must stop when its client is gone. Every SSE
 * parser (both OpenAI SDKs included) skips comments.
 */
export const SSE_IDLE_COMMENT_MS = 5_000;

/**
 * A server-sent event stream as OpenClaw's OpenAI routes write it: `data:` frames (with an
 * `event:` line on /v1/responses), ending with `data: [DONE]`; an idle comment only to notice
 * a client that left. A write to a client that went away fails; `gone` then turns true and
 * `onGone` fires once.
 */
export class SseStream {
  private lastWriteAt = Date.now();
  private idleTimer: ReturnType<typeof setInterval> | null = null;
  private readonly writer: WritableStreamDefaultWriter<Uint8Array>;
  private readonly readable: ReadableStream<Uint8Array>;
  private readonly encoder = new TextEncoder();
  private goneHandlers: Array<() => void> = [];
  gone = false;

  constructor() {
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    this.readable = readable;
    this.writer = writable.getWriter();
    this.writer.closed.catch(() => this.markGone());
    this.idleTimer = setInterval(() => {
      if (Date.now() - this.lastWriteAt >= SSE_IDLE_COMMENT_MS) void this.write(": keep-alive\n\n");
    }, SSE_IDLE_COMMENT_MS / 2);
  }

  response(headers: Record<string, string> = {}): Response {
    return new Response(this.readable, {
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache",
        connection: "keep-alive",
        ...headers,
      },
    });
  }

  /** Runs `handler` once when the client is gone (at once if it already is). */
  onGone(handler: () => void): void {
    if (this.gone) handler();
    else this.goneHandlers.push(handler);
  }

  /** Writes one frame; false once the client is gone. */
  send(data: string, event?: string): Promise<boolean> {
    return this.write(`${event ? `event: ${event}\n` : ""}data: ${data}\n\n`);
  }

  private async write(text: string): Promise<boolean> {
    if (this.gone) return false;
    this.lastWriteAt = Date.now();
    try {
      await this.writer.write(this.encoder.encode(text));
      return true;
    } catch {
      this.markGone();
      return false;
    }
  }

  sendJson(value: unknown): Promise<boolean> {
    return this.send(JSON.stringify(value));
  }

  /** `data: [DONE]` and the end of the stream. */
  async done(): Promise<void> {
    this.stopIdleComments();
    await this.send("[DONE]");
    await this.writer.close().catch(() => undefined);
  }

  markGone(): void {
    if (this.gone) return;
    this.gone = true;
    this.stopIdleComments();
    const handlers = this.goneHandlers;
    this.goneHandlers = [];
    for (const handler of handlers) handler();
  }

  private stopIdleComments(): void {
    if (this.idleTimer) clearInterval(this.idleTimer);
    this.idleTimer = null;
  }
}
