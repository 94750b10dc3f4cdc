import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { z } from "zod";

/** Every HTTP error body is `{ ok: false, error: { type, message } }`. */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

export const badRequest = (message: string) => new ApiError(400, "invalid_request", message);
export const unauthorized = () => new ApiError(401, "unauthorized", "Unauthorized");
export const forbidden = (message: string) => new ApiError(403, "forbidden", message);
export const notFound = (message: string) => new ApiError(404, "not_found", message);
export const conflict = (message: string) => new ApiError(409, "conflict", message);
export const tooLarge = (message: string) => new ApiError(413, "payload_too_large", message);

/** "path.to.field: message; …" — names where the input is wrong. */
export function describeZodError(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => {
      const path = issue.path.map(String).join(".");
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join("; ");
}

export function errorBody(type: string, message: string) {
  return { ok: false as const, error: { type, message } };
}
