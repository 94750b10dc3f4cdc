import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { z } from "zod";
import { DomainError, retryAfterSeconds } from "../../domain/errors";
import { ApiError } from "../../http/errors";

/**
 * Errors of the OpenAI-compatible routes: `{ error: { message, type, code? } }`, without the
 * service's `ok` field, with OpenClaw's types and texts where it has them.
 */
export class OpenAiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly type: string,
    message: string,
    readonly code?: string,
    /** Extra response headers (Retry-After on a 429). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

// The wire shape lives in protocol/ (the HTTP hop guard answers in it too); re-exported here.
export { type OpenAiErrorBody, openAiErrorBody } from "../../protocol/openai-error";

export const invalidRequest = (message: string, status: ContentfulStatusCode = 400) =>
  new OpenAiError(status, "invalid_request_error", message);

/** OpenClaw's message for a body over the size limit. */
export const PAYLOAD_TOO_LARGE = "Payload too large";

/**
 * A failure of any layer as the OpenAI shape: the service's own HTTP errors (auth, scope, body)
 * and domain refusals keep their status; anything unexpected is a 500 without detail.
 */
export function toOpenAiError(error: unknown): OpenAiError {
  if (error instanceof OpenAiError) return error;
  if (error instanceof ApiError) return fromApiError(error);
  if (error instanceof DomainError) {
    switch (error.code) {
      case "not_found":
        return new OpenAiError(404, "invalid_request_error", error.message);
      case "forbidden":
        return new OpenAiError(403, "forbidden", error.message);
      case "conflict":
        return new OpenAiError(409, "invalid_request_error", error.message);
      case "too_large":
        return new OpenAiError(413, "invalid_request_error", error.message);
      case "invalid":
        return invalidRequest(error.message);
      case "unavailable":
        return new OpenAiError(503, "api_error", error.message);
      case "rate_limited":
        return new OpenAiError(429, "rate_limit_error", error.message, undefined, {
          "Retry-After": String(retryAfterSeconds(error)),
        });
    }
  }
  console.error("openai: unhandled error", error);
  return new OpenAiError(500, "api_error", "internal error");
}

function fromApiError(error: ApiError): OpenAiError {
  switch (error.status) {
    case 401:
      return new OpenAiError(401, "unauthorized", "Unauthorized");
    case 403:
      return new OpenAiError(403, "forbidden", error.message);
    case 413:
      return new OpenAiError(413, "invalid_request_error", PAYLOAD_TOO_LARGE);
    case 429:
      return new OpenAiError(429, "rate_limit_error", error.message, undefined, {
        ...(error.retryAfterSeconds !== undefined ? { "Retry-After": String(error.retryAfterSeconds) } : {}),
      });
    default:
      return new OpenAiError(error.status, error.status >= 500 ? "api_error" : "invalid_request_error", error.message);
  }
}

/** OpenClaw reports the first schema issue as `<dotted.path>: <message>` (the root's path is empty). */
export function schemaMessage(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "invalid request";
  return `${issue.path.map(String).join(".")}: ${issue.message}`;
}
