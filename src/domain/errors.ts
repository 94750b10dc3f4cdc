/** A domain failure the transports map to their own error shapes (HTTP status, gateway error frame, MCP tool error). */
export class DomainError extends Error {
  constructor(
    /** `unavailable`: the deployment cannot serve it (misconfigured); the message names no internals. */
    readonly code: "invalid" | "not_found" | "forbidden" | "conflict" | "too_large" | "rate_limited" | "unavailable",
    message: string,
    /** Machine-readable details a transport passes on (the gateway's `error.details`). */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** A refusal over a tenant limit: `retryAfterMs` in its details, for each door's retry hint. */
export function rateLimited(message: string, retryAfterMs: number): DomainError {
  return new DomainError("rate_limited", message, { retryAfterMs });
}

/** Marks a refusal thrown across an RPC boundary, which keeps only an error's message. */
const REMOTE_REFUSAL_MARK = "rate_limited;retryAfterMs=";

/** A refusal over a tenant limit thrown in an object, for its caller to restore (restoreRefusal). */
export function remoteRefusal(message: string, retryAfterMs: number): Error {
  return new Error(`${REMOTE_REFUSAL_MARK}${retryAfterMs};${message}`);
}

/** The DomainError a remoteRefusal stood for, or the error as it is. */
export function restoreRefusal(error: unknown): unknown {
  if (!(error instanceof Error) || !error.message.startsWith(REMOTE_REFUSAL_MARK)) return error;
  const rest = error.message.slice(REMOTE_REFUSAL_MARK.length);
  const at = rest.indexOf(";");
  return rateLimited(rest.slice(at + 1), Number(rest.slice(0, at)));
}

/** Awaits a call into another object, with its remote refusal restored as a DomainError. */
export async function refusalsRestored<T>(call: T | PromiseLike<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    throw restoreRefusal(error);
  }
}

/** Whole seconds to wait after a rate-limit refusal (at least 1, as `Retry-After` wants). */
export function retryAfterSeconds(error: DomainError): number {
  const ms = Number(error.details?.retryAfterMs ?? 1000);
  return Math.max(1, Math.ceil(ms / 1000));
}
