import type { Context } from "hono";
import { z } from "zod";
import { describeZodError } from "../protocol/describe";
import { BODY_TOO_LARGE, readBoundedBody } from "../util/bounded-body";
import { ApiError, badRequest, tooLarge } from "./errors";

/** Request bodies over this are refused with 413 (OpenClaw's /tools/invoke uses the same cap). */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;

/**
 * Reads, decodes (strict UTF-8), parses and validates a JSON body. Every failure is a
 * 4xx ApiError naming what is wrong; nothing reaches storage unvalidated.
 */
export async function readJson<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  return validJson(schema, await readJsonValue(c));
}

/** A parsed JSON value validated against a schema (a 400 naming the path otherwise). */
export function validJson<S extends z.ZodType>(schema: S, raw: unknown): z.infer<S> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw badRequest(describeZodError(parsed.error));
  return parsed.data;
}

/** Reads a JSON body without a schema (callers that validate later or treat fields loosely). */
export async function readJsonValue(c: Context): Promise<unknown> {
  const bytes = await readBoundedBody(c.req.raw, MAX_BODY_BYTES);
  if (bytes === BODY_TOO_LARGE) throw tooLargeBody();
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
 * Validates a query string against an object schema, converting values to the type the
 * schema expects for that field ("5" → 5, "1"/"true" → true). Repeated keys become arrays.
 */
export function parseQuery<S extends z.ZodObject>(queries: Record<string, string[]>, schema: S): z.infer<S> {
  const raw: Record<string, unknown> = {};
  for (const [name, values] of Object.entries(queries)) {
    const field = schema.shape[name] as z.ZodType | undefined;
    const converted = values.map((value) => convertQueryValue(value, field));
    raw[name] = converted.length === 1 ? converted[0] : converted;
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw badRequest(describeZodError(parsed.error));
  return parsed.data;
}

function convertQueryValue(value: string, field: z.ZodType | undefined): unknown {
  const kind = baseType(field);
  if (kind === "number" && value.trim() !== "" && Number.isFinite(Number(value))) return Number(value);
  if (kind === "boolean") {
    if (["1", "true", "yes", "on"].includes(value.toLowerCase())) return true;
    if (["0", "false", "no", "off"].includes(value.toLowerCase())) return false;
  }
  return value;
}

/** The underlying type of a (possibly optional) schema field. */
function baseType(field: z.ZodType | undefined): "number" | "boolean" | "other" {
  let current: unknown = field;
  while (current instanceof z.ZodOptional || current instanceof z.ZodNullable || current instanceof z.ZodDefault) {
    current = (current as z.ZodOptional<z.ZodType>).unwrap();
  }
  if (current instanceof z.ZodNumber) return "number";
  if (current instanceof z.ZodBoolean) return "boolean";
  return "other";
}
