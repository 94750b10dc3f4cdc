/**
 * Bounds on a tenant config write, checked before anything merges, validates or stores it. The
 * walk is iterative: a 2,000-level nest must be refused, not overflow the stack that measures it.
 * The deepest valid config path (`agents.list[].runner.cost.input`) is 6 levels.
 */

/** Nesting (objects and arrays) a config write may have. */
export const MAX_CONFIG_DEPTH = 16;
/** Size of a config write as JSON text, in UTF-16 code units (≈ bytes for the ASCII a config holds). */
export const MAX_CONFIG_CHARS = 512 * 1024;

/** Why a config (or a patch to one) is refused, or undefined when it is within the bounds. */
export function configBoundsProblem(value: unknown, serialized?: string): string | undefined {
  const depth = nestingExceeds(value, MAX_CONFIG_DEPTH);
  if (depth) return `config is nested deeper than ${MAX_CONFIG_DEPTH} levels`;
  const size = (serialized ?? JSON.stringify(value) ?? "").length;
  if (size > MAX_CONFIG_CHARS) return `config is larger than ${MAX_CONFIG_CHARS} characters of JSON`;
  return undefined;
}

/** A raw JSON text is refused on its length before it is parsed. */
export function rawConfigTooLarge(raw: string): string | undefined {
  return raw.length > MAX_CONFIG_CHARS ? `config is larger than ${MAX_CONFIG_CHARS} characters of JSON` : undefined;
}

function nestingExceeds(root: unknown, limit: number): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value: root, depth: 0 }];
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    if (value === null || typeof value !== "object") continue;
    if (depth + 1 > limit) return true;
    for (const child of Object.values(value)) stack.push({ value: child, depth: depth + 1 });
  }
  return false;
}
