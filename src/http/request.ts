import type { Context } from "hono";
import type { z } from "zod";
import { ApiError, badRequest, describeZodError, tooLarge } from "./errors";

/** Request bodies over this are refused with 413 (OpenClaw's /tools/invoke uses the same cap). */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;

/**
 * Reads, decodes (strict UTF-8), parses and validates a JSON body. Every failure is a
 * 4xx ApiError naming what is wrong; nothing reaches storage unvalidated.
 */
export async function readJson<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  const raw = await readJsonValue(c);
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw badRequest(describeZodError(parsed.error));
  return parsed.data;
}

/** Reads a JSON body without a schema (callers that validate later or treat fields loosely). */
export async function readJsonValue(c: Context): Promise<unknown> {
  const declared = Number(c.req.header("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) throw tooLargeBody();
  const bytes = await c.req.arrayBuffer();
  if (bytes.byteLength > MAX_BODY_BYTES) throw tooLargeBody();
  if (bytes.byteLength === 0) throw badRequest("request body must be JSON");
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw badRequest("request body is not valid UTF-8");
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(400, "invalid_json", "request body is not valid JSON");
  }
}

function tooLargeBody() {
  return tooLarge(`request body exceeds ${MAX_BODY_BYTES} bytes`);
}

/**
 * Validates a query string against an object schema, converting "123" to numbers and
 * "true"/"1" to booleans where the schema expects them. Repeated keys become arrays.
 */
export function parseQuery<S extends z.ZodType>(queries: Record<string, string[]>, schema: S): z.infer<S> {
  const raw: Record<string, unknown> = {};
  for (const [name, values] of Object.entries(queries)) {
    const converted = values.map(convertQueryValue);
    raw[name] = converted.length === 1 ? converted[0] : converted;
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw badRequest(describeZodError(parsed.error));
  return parsed.data;
}

function convertQueryValue(value: string): unknown {
  if (value === "true") return true;
  if (value === "false") return false;
  if (/^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  return value;
}
