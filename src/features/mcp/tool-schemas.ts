import { z } from "zod";
import type { ToolSpec } from "../../tools/tool-spec";

/** A tool's input as MCP's tools/list shows it: a plain JSON Schema object. */
export type ToolInputSchema = { type: "object"; properties?: Record<string, object>; required?: string[] };

const cache = new Map<string, ToolInputSchema>();

/**
 * JSON Schema of a tool's arguments, derived from its zod schema (the one tools/invoke
 * validates with). Numbers stay `type: "number"` as in OpenClaw's own tool schemas; extra
 * properties are allowed (they are ignored, as newer clients may send some).
 */
export function toolInputSchema(tool: ToolSpec): ToolInputSchema {
  const cached = cache.get(tool.name);
  if (cached) return cached;
  const {
    $schema: _,
    additionalProperties: __,
    ...json
  } = z.toJSONSchema(tool.args, {
    io: "input",
    unrepresentable: "any",
  }) as Record<string, unknown>;
  const properties = { ...((json.properties as Record<string, Record<string, unknown>> | undefined) ?? {}) };
  for (const [param, description] of Object.entries(tool.params ?? {})) {
    if (properties[param]) properties[param] = { ...properties[param], description };
  }
  const result = { ...json, type: "object", properties } as ToolInputSchema;
  cache.set(tool.name, result);
  return result;
}
