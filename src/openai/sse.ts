/**
 * A server-sent event stream as OpenClaw's OpenAI routes write it: `data:` frames (with an
 * `event:` line on /v1/responses), no comments or keep-alives, ending with `data: [DONE]`.
 * A write to a client that went away fails; `gone` then turns true and `onGone` fires once.
 */
export class SseStream {
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
  async send(data: string, event?: string): Promise<boolean> {
    if (this.gone) return false;
    try {
      await this.writer.write(this.encoder.encode(`${event ? `event: ${event}\n` : ""}data: ${data}\n\n`));
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
    await this.send("[DONE]");
    await this.writer.close().catch(() => undefined);
  }

  markGone(): void {
    if (this.gone) return;
    this.gone = true;
    const handlers = this.goneHandlers;
    this.goneHandlers = [];
    for (const handler of handlers) handler();
  }
}
