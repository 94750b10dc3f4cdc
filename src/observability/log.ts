/**
 * Structured log lines: one JSON object per line, so `wrangler dev` shows them as they happen
 * and `wrangler tail` / Workers Logs can filter on the fields. Only ids and error texts go in:
 * never a token, a secret, a message body or a URL (URLs may carry credentials).
 */

export type LogFields = {
  tenant?: string | undefined;
  session?: string | undefined;
  run?: string | undefined;
  /** What failed, in words (runner and delivery error texts are already secret-free). */
  error?: string | undefined;
} & Record<string, string | number | boolean | undefined>;

export type LogEvent =
  | "run.failed"
  | "delivery.failed"
  | "delivery.dead"
  | "auth.failed"
  | "tenant.delete.started"
  | "tenant.delete.finished"
  | "session.create_conflict";

export function logWarning(event: LogEvent, fields: LogFields): void {
  console.warn(logLine("warn", event, fields));
}

export function logInfo(event: LogEvent, fields: LogFields): void {
  console.log(logLine("info", event, fields));
}

/** The JSON line (exported for tests): undefined fields are left out. */
export function logLine(level: "info" | "warn", event: LogEvent, fields: LogFields): string {
  const line: Record<string, unknown> = { level, event };
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) line[name] = value;
  line.ts = new Date().toISOString();
  return JSON.stringify(line);
}
