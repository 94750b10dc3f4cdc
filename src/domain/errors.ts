/** A domain failure the transports map to their own error shapes (HTTP status, gateway error frame, MCP tool error). */
export class DomainError extends Error {
  constructor(
    readonly code: "invalid" | "not_found" | "forbidden" | "conflict" | "too_large" | "rate_limited",
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

/** Whole seconds to wait after a rate-limit refusal (at least 1, as `Retry-After` wants). */
export function retryAfterSeconds(error: DomainError): number {
  const ms = Number(error.details?.retryAfterMs ?? 1000);
  return Math.max(1, Math.ceil(ms / 1000));
}
