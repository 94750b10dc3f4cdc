/** A domain failure the transports map to their own error shapes (HTTP status, gateway error frame, MCP tool error). */
export class DomainError extends Error {
  constructor(
    readonly code: "invalid" | "not_found" | "forbidden" | "conflict" | "too_large",
    message: string,
    /** Machine-readable details a transport passes on (the gateway's `error.details`). */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}
