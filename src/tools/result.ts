/** OpenClaw's tool result: the payload as pretty JSON text plus the payload itself. */
export type ToolResult = { content: Array<{ type: "text"; text: string }>; details: unknown };

export function jsonResult(payload: unknown): ToolResult {
  return { content: [{ type: "text", text: JSON.stringify(payload, null, 2) }], details: payload };
}

/** A tool input error: the transport answers 400 `tool_error` with this message. */
export class ToolInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ToolInputError";
  }
}

/** What a call carries besides its args: an idempotency key when a repeat must not act twice. */
export type ToolCall = { idempotencyKey?: string };
