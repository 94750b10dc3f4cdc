/**
 * OpenClaw's hook mapping templates: `{{expr}}` where expr is `path`, `now`, `headers.<name>`,
 * `query.<name>`, `payload.<a.b[0]>` or a bare `<a.b[0]>` into the JSON body. Missing values
 * render empty, strings as is, numbers and booleans as text, anything else as JSON; the hook's
 * auth headers render empty. Pure.
 */

/** What a template can read from one hook request. */
export type HookTemplateContext = {
  /** The sub-path after the hooks path, e.g. `github`. */
  path: string;
  payload: Record<string, unknown>;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  query: Record<string, string>;
  now?: Date;
};

/**
 * Headers a template never reads: the hook's own secret (`Authorization: Bearer`,
 * `x-openclaw-token`) and other credentials a caller or a proxy may send. A rendered message is
 * readable with read scope, so copying the hook token into it would hand it to every reader.
 */
const SECRET_HEADERS: ReadonlySet<string> = new Set([
  "authorization",
  "x-openclaw-token",
  "proxy-authorization",
  "cookie",
]);

/** Segments that would reach an object's prototype are never followed. */
const BLOCKED_SEGMENTS: ReadonlySet<string> = new Set(["__proto__", "prototype", "constructor"]);

export function hasTemplateExpressions(template: string): boolean {
  return /\{\{\s*[^}]+\s*\}\}/.test(template);
}

export function renderTemplate(template: string | undefined, ctx: HookTemplateContext): string {
  if (!template) return "";
  return template.replace(/\{\{\s*([^}]+)\s*\}\}/g, (_match, expr: string) => {
    const value = resolveExpression(expr.trim(), ctx);
    if (value === undefined || value === null) return "";
    if (typeof value === "string") return value;
    if (typeof value === "number" || typeof value === "boolean") return String(value);
    return JSON.stringify(value);
  });
}

/** A template rendered and trimmed; undefined when absent or empty. */
export function renderOptional(template: string | undefined, ctx: HookTemplateContext): string | undefined {
  if (!template) return undefined;
  const rendered = renderTemplate(template, ctx).trim();
  return rendered || undefined;
}

function resolveExpression(expr: string, ctx: HookTemplateContext): unknown {
  if (expr === "path") return ctx.path;
  if (expr === "now") return (ctx.now ?? new Date()).toISOString();
  if (expr.startsWith("headers.")) {
    const name = expr.slice("headers.".length);
    return SECRET_HEADERS.has(name.toLowerCase()) ? undefined : valueAt(ctx.headers, name);
  }
  if (expr.startsWith("query.")) return valueAt(ctx.query, expr.slice("query.".length));
  if (expr.startsWith("payload.")) return valueAt(ctx.payload, expr.slice("payload.".length));
  return valueAt(ctx.payload, expr);
}

/** `a.b[0].c` into a JSON value; undefined when any step is missing or blocked. */
export function valueAt(input: unknown, path: string): unknown {
  if (!path) return undefined;
  let current = input;
  for (const match of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) {
    if (current === null || current === undefined) return undefined;
    if (match[2] !== undefined) {
      if (!Array.isArray(current)) return undefined;
      current = current[Number(match[2])];
      continue;
    }
    const segment = match[1]!;
    if (BLOCKED_SEGMENTS.has(segment) || typeof current !== "object") return undefined;
    current = Object.hasOwn(current, segment) ? (current as Record<string, unknown>)[segment] : undefined;
  }
  return current;
}
