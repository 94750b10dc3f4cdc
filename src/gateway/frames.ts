import type { ErrorCode, ErrorShape } from "../protocol/gateway";
import { waitText } from "../util/wait-text";

/** Serialized gateway frames. Payloads are JSON-encoded once and sent to every recipient as is. */

export function resFrame(id: string, payload: unknown): string {
  return JSON.stringify({ type: "res", id, ok: true, payload });
}

export function errorFrame(id: string, error: ErrorShape, payload?: unknown): string {
  return JSON.stringify({ type: "res", id, ok: false, ...(payload !== undefined ? { payload } : {}), error });
}

export function eventFrame(event: string, payload: unknown, seq?: number): string {
  return JSON.stringify({ type: "event", event, payload, ...(seq !== undefined ? { seq } : {}) });
}

/** An event frame around a payload that is already JSON (avoids re-encoding big messages). */
export function rawEventFrame(event: string, payloadJson: string, seq?: number): string {
  return `{"type":"event","event":${JSON.stringify(event)},"payload":${payloadJson}${seq !== undefined ? `,"seq":${seq}` : ""}}`;
}

export function gatewayError(code: ErrorCode, message: string, details?: unknown): ErrorShape {
  return { code, message, ...(details !== undefined ? { details } : {}) };
}

/**
 * A tenant limit's refusal: `UNAVAILABLE` with `retryAfterMs` (and in `details`), the wait in
 * its message. Not `retryable`: the Control UI re-sends a retryable `chat.send` by itself and
 * shows the message as "Waiting for reconnect" meanwhile, never the reason; a limit is the
 * tenant's quota, not a gateway that is briefly busy, so the UI shows the refusal in the chat.
 */
export function refusalError(message: string, retryAfterMs: number): ErrorShape {
  return {
    ...gatewayError("UNAVAILABLE", `${message}; retry in ${waitText(retryAfterMs)}`, { retryAfterMs }),
    retryable: false,
    retryAfterMs,
  };
}
