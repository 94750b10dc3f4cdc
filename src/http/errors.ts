import type { ContentfulStatusCode } from "hono/utils/http-status";
import { DomainError, retryAfterSeconds } from "../domain/errors";
import { ToolNotAvailableError } from "../tools/invoke";
import { ToolInputError } from "../tools/result";

/** Every HTTP error body is `{ ok: false, error: { type, message } }`. */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly type: string,
    message: string,
    /** Seconds for a `Retry-After` header (429 answers). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

export const badRequest = (message: string) => new ApiError(400, "invalid_request", message);
export const unauthorized = () => new ApiError(401, "unauthorized", "Unauthorized");
/** A run token whose run has ended: it no longer acts as its session. */
export const runEnded = () => new ApiError(401, "unauthorized", "run token is no longer valid: its run has ended");
export const forbidden = (message: string) => new ApiError(403, "forbidden", message);
export const notFound = (message: string) => new ApiError(404, "not_found", message);
export const conflict = (message: string) => new ApiError(409, "conflict", message);
export const tooLarge = (message: string) => new ApiError(413, "payload_too_large", message);

/**
 * The one map from failures to HTTP errors. `tool` is the flavour of `/tools/invoke`, where
 * OpenClaw answers input and domain refusals as `400 tool_error` and unknown tools as 404.
 * Anything unexpected is logged and answered 500 without detail.
 */
export function toApiError(error: unknown, flavour: "api" | "tool" = "api"): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof ToolNotAvailableError) return notFound(error.message);
  if (error instanceof ToolInputError) return new ApiError(400, "tool_error", error.message);
  if (error instanceof DomainError) {
    if (error.code === "too_large") return tooLarge(error.message);
    if (error.code === "unavailable") return new ApiError(503, "unavailable", error.message);
    if (error.code === "rate_limited")
      return new ApiError(429, "rate_limited", error.message, retryAfterSeconds(error));
    if (flavour === "tool") return new ApiError(400, "tool_error", error.message);
    switch (error.code) {
      case "not_found":
        return notFound(error.message);
      case "forbidden":
        return forbidden(error.message);
      case "conflict":
        return conflict(error.message);
      case "invalid":
        return badRequest(error.message);
    }
  }
  console.error(flavour === "tool" ? "tools.invoke failed" : "unhandled error", error);
  return flavour === "tool"
    ? new ApiError(500, "tool_error", "tool execution failed")
    : new ApiError(500, "internal", "internal error");
}
