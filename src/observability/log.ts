import type { TenantLogLine } from "../contracts/ledger-api";

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
  | "channel.turn"
  | "channel.update_failed"
  | "run.failed"
  | "run.slot_unavailable"
  | "message.cut"
  | "session.nearly_full"
  | "delivery.failed"
  | "delivery.dead"
  | "auth.failed"
  | "tenant.delete.started"
  | "tenant.delete.finished"
  | "session.create_conflict"
  | "config.changed"
  | "deployment_key.changed"
  | "deployment.misconfigured"
  | "gateway.hub_unreachable"
  | "gateway.hub_started"
  | "gateway.hub_delivery_failed";

/**
 * Where a tenant's own lines (those with a `tenant` field) also go: its ledger, so the tenant
 * can read them (`logs.tail`). Set by code that holds the bindings (ledger/log-sink.ts).
 */
export type TenantLogSink = (tenantId: string, line: TenantLogLine) => Promise<unknown>;
let tenantLogSink: TenantLogSink | null = null;

export function setTenantLogSink(sink: TenantLogSink | null): void {
  tenantLogSink = sink;
}

/** `waitUntil` keeps the tenant's copy alive past the response (worker requests). */
type KeepAlive = (promise: Promise<unknown>) => void;

export function logWarning(event: LogEvent, fields: LogFields, keepAlive?: KeepAlive): void {
  const line = lineOf("warn", event, fields);
  console.warn(JSON.stringify(line));
  toTenant(fields, line, keepAlive);
}

export function logInfo(event: LogEvent, fields: LogFields, keepAlive?: KeepAlive): void {
  const line = lineOf("info", event, fields);
  console.log(JSON.stringify(line));
  toTenant(fields, line, keepAlive);
}

/** The JSON line (exported for tests): undefined fields are left out. */
export function logLine(level: "info" | "warn", event: LogEvent, fields: LogFields): string {
  return JSON.stringify(lineOf(level, event, fields));
}

function lineOf(level: "info" | "warn", event: LogEvent, fields: LogFields): TenantLogLine {
  const line: Record<string, unknown> = { level, event };
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) line[name] = value;
  line.ts = new Date().toISOString();
  return line as TenantLogLine;
}

function toTenant(fields: LogFields, line: TenantLogLine, keepAlive: KeepAlive | undefined): void {
  if (!fields.tenant || !tenantLogSink) return;
  const sent = tenantLogSink(fields.tenant, line);
  keepAlive?.(sent);
}
