import type { z } from "zod";
import { describeParamsError } from "./handshake";
import { hasOpenclawSchema, openclawParamsError, withoutForeignKeys, zodObjectKeys } from "./params-validation";

const keysByMethod = new Map<string, string[] | null>();

/**
 * A method's params checked first against the real gateway's schema (its refusals, its
 * words), then typed by this service's zod schema with the properties it has no feature for
 * left out.
 */
export function parseParams<S extends z.ZodType>(
  method: string,
  schema: S,
  params: unknown,
): { success: true; data: z.infer<S> } | { success: false; message: string } {
  let keys = keysByMethod.get(method);
  if (keys === undefined) {
    keys = zodObjectKeys(schema);
    keysByMethod.set(method, keys);
  }
  const refused = openclawParamsError(method, params, keys ?? []);
  if (refused) return { success: false, message: refused };
  const input = hasOpenclawSchema(method) ? withoutForeignKeys(params, keys) : params;
  const parsed = schema.safeParse(input, { reportInput: true });
  if (!parsed.success) return { success: false, message: describeParamsError(parsed.error) };
  return { success: true, data: parsed.data };
}
