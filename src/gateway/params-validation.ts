import { Value } from "typebox/value";
import type { z } from "zod";
import { type JsonSchema, OPENCLAW_PARAM_SCHEMAS } from "../protocol/openclaw-schemas";

/**
 * Params validation in the real gateway's terms: the same JSON Schemas, checked by the same
 * validator (TypeBox), described by the same rules, so that what is refused and the message
 * saying why match what OpenClaw clients see from the real gateway.
 */

type SchemaError = {
  keyword: string;
  schemaPath: string;
  instancePath: string;
  params: { requiredProperties?: string[]; additionalProperties?: string[]; failingKeyword?: string };
  message: string;
};

/** Schemas with this service's own extension properties added (accepted, typed by zod later). */
const extended = new Map<string, JsonSchema>();

/**
 * The real gateway's description of why `value` does not match `method`'s schema, or null
 * when it matches (or the real gateway does not validate the method). `ownKeys` are extension
 * properties this service accepts in addition to the real ones.
 */
export function openclawParamsError(method: string, value: unknown, ownKeys: readonly string[] = []): string | null {
  const schema = schemaFor(method, ownKeys);
  if (!schema) return null;
  // The common case (valid params) costs one boolean check; enumerating errors is several
  // times slower and only needed to describe a refusal.
  if (Value.Check(lenient(schema), value)) return null;
  // Properties the schema does not name are ignored, not refused: clients newer than the
  // pinned OpenClaw send more, and the handlers only read what they know.
  const errors = ([...Value.Errors(schema, value)] as unknown as SchemaError[]).filter(
    (error) => !isUnknownProperty(error),
  );
  return errors.length === 0 ? null : formatSchemaErrors(errors);
}

function isUnknownProperty(error: SchemaError): boolean {
  return (
    error.keyword === "additionalProperties" ||
    (error.keyword === "boolean" && error.schemaPath.endsWith("/additionalProperties"))
  );
}

const lenientSchemas = new WeakMap<JsonSchema, JsonSchema>();

/** `schema` with every `additionalProperties: false` dropped (unknown properties are ignored). */
function lenient(schema: JsonSchema): JsonSchema {
  let relaxed = lenientSchemas.get(schema);
  if (!relaxed) {
    relaxed = withoutClosedObjects(schema) as JsonSchema;
    lenientSchemas.set(schema, relaxed);
  }
  return relaxed;
}

function withoutClosedObjects(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutClosedObjects);
  if (typeof node !== "object" || node === null) return node;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "additionalProperties" && value === false) continue;
    copy[key] = withoutClosedObjects(value);
  }
  return copy;
}

/** Whether the real gateway validates `method`'s params at all. */
export function hasOpenclawSchema(method: string): boolean {
  return method in OPENCLAW_PARAM_SCHEMAS;
}

function schemaFor(method: string, ownKeys: readonly string[]): JsonSchema | undefined {
  const base = OPENCLAW_PARAM_SCHEMAS[method];
  if (!base || ownKeys.length === 0) return base;
  const cacheKey = `${method}\u0000${ownKeys.join(",")}`;
  let schema = extended.get(cacheKey);
  if (!schema) {
    const properties = { ...(base.properties as Record<string, unknown>) };
    for (const key of ownKeys) properties[key] ??= {};
    schema = { ...base, properties };
    extended.set(cacheKey, schema);
  }
  return schema;
}

/**
 * OpenClaw's formatter: one `unexpected property` (the first name) per object, one `must have
 * required property` (the first missing name), the validator's message for everything else,
 * `at <path>: ` in front, duplicates removed, joined with "; ".
 */
export function formatSchemaErrors(errors: readonly SchemaError[]): string {
  const parts: string[] = [];
  for (const error of errors) {
    // The validator reports every refused property once more as a `false` schema; the
    // aggregated additionalProperties error says it once.
    if (error.keyword === "boolean" && error.schemaPath.endsWith("/additionalProperties")) continue;
    const prefix = error.instancePath ? `at ${error.instancePath}: ` : "";
    let text: string;
    if (error.keyword === "additionalProperties") {
      const first = error.params.additionalProperties?.[0];
      text = `${error.instancePath ? `at ${error.instancePath}` : "at root"}: unexpected property '${first}'`;
    } else if (error.keyword === "required") {
      text = `${prefix}must have required property '${error.params.requiredProperties?.[0]}'`;
    } else if (error.keyword === "then" || (error.keyword === "if" && error.params.failingKeyword === "then")) {
      text = "must have required conditional properties";
    } else {
      text = `${prefix}${error.message}`;
    }
    if (!parts.includes(text)) parts.push(text);
  }
  return parts.length > 0 ? parts.join("; ") : "unknown validation error";
}

/** The property names a zod params schema declares (through `.optional()`), or null if not an object. */
export function zodObjectKeys(schema: z.ZodType): string[] | null {
  let current = schema as unknown as { _zod: { def: { type: string; innerType?: unknown; shape?: object } } };
  while (current._zod.def.type === "optional" || current._zod.def.type === "nullable") {
    current = current._zod.def.innerType as typeof current;
  }
  return current._zod.def.type === "object" ? Object.keys(current._zod.def.shape ?? {}) : null;
}

/**
 * Params reduced to the properties the handler knows: the real schema accepted the others
 * (features this service does not have), so they are ignored, not refused.
 */
export function withoutForeignKeys(value: unknown, keys: readonly string[] | null): unknown {
  if (!keys || typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const known = new Set(keys);
  return Object.fromEntries(Object.entries(value).filter(([key]) => known.has(key)));
}
