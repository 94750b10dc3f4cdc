import type { TenantLogLine, ToolUsageRow, UsageRow } from "../../contracts/ledger-api";
import type { TenantContext } from "../../domain/context";
import { DomainError } from "../../domain/errors";
import { utcDate } from "../../ledger/ledger-store";

/**
 * The tenant's usage and logs as OpenClaw's `sessions.usage` and `logs.tail` answer them, from
 * the tenant's ledger: per-day rollups written as runs finish (so a query reads days ×
 * sessions × models rows, whatever the transcripts hold) and the tenant's own log lines. Days
 * are UTC. Costs come from the runner's price (`runner.cost`, USD per million tokens); runs of
 * a runner without one are counted as missing a cost, as OpenClaw counts them.
 */

const DAY_MS = 24 * 60 * 60_000;
/** The range when a request names none (OpenClaw's Usage page asks for 30 days). */
const DEFAULT_RANGE_DAYS = 30;
export const USAGE_SESSIONS_MAX = 1000;
/** Sessions whose index row (label, model, chat type) a usage answer looks up. */
const USAGE_SESSION_ROWS_MAX = 200;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

type Totals = ReturnType<typeof emptyTotals>;

function emptyTotals() {
  return {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    totalCost: 0,
    inputCost: 0,
    outputCost: 0,
    cacheReadCost: 0,
    cacheWriteCost: 0,
    missingCostEntries: 0,
  };
}

function add(totals: Totals, row: UsageRow): Totals {
  totals.input += row.input;
  totals.output += row.output;
  totals.totalTokens += row.totalTokens;
  totals.inputCost += row.inputCost;
  totals.outputCost += row.outputCost;
  totals.totalCost += row.inputCost + row.outputCost;
  totals.missingCostEntries += row.runs - row.pricedRuns;
  return totals;
}

function grouped<K>(rows: UsageRow[], keyOf: (row: UsageRow) => K): Map<K, UsageRow[]> {
  const groups = new Map<K, UsageRow[]>();
  for (const row of rows) {
    const key = keyOf(row);
    const group = groups.get(key);
    if (group) group.push(row);
    else groups.set(key, [row]);
  }
  return groups;
}

const sum = (rows: UsageRow[]) => rows.reduce(add, emptyTotals());

export type UsageParams = { startDate?: string; endDate?: string; agentId?: string; limit?: number };

export async function sessionsUsage(ctx: TenantContext<"index">, params: UsageParams) {
  const now = Date.now();
  const endDate = params.endDate ?? utcDate(now);
  const startDate = params.startDate ?? utcDate(now - (DEFAULT_RANGE_DAYS - 1) * DAY_MS);
  for (const [name, value] of [
    ["startDate", startDate],
    ["endDate", endDate],
  ] as const) {
    if (!DATE.test(value))
      throw new DomainError("invalid", `invalid sessions.usage params: ${name} must be YYYY-MM-DD`);
  }
  const limit = Math.min(params.limit ?? USAGE_SESSIONS_MAX, USAGE_SESSIONS_MAX);
  const { rows, tools } = await ctx.ledger.usage({
    startDate,
    endDate,
    limit,
    ...(params.agentId ? { agentId: params.agentId } : {}),
  });
  // Sessions with the most tokens first (each summed once).
  const bySession = [...grouped(rows, (row) => row.sessionKey)]
    .map(([key, sessionRows]) => ({ key, sessionRows, tokens: sum(sessionRows).totalTokens }))
    .sort((a, b) => b.tokens - a.tokens);
  const sessions = await Promise.all(
    bySession.slice(0, limit).map(async ({ key, sessionRows }, index) => {
      const row = index < USAGE_SESSION_ROWS_MAX ? await ctx.tenant.session(key) : null;
      const sessionId = sessionRows.at(-1)?.sessionId ?? row?.sessionId;
      return {
        key,
        ...(row?.label ? { label: row.label } : {}),
        ...(sessionId ? { sessionId, currentSessionId: sessionId, includedSessionIds: [sessionId] } : {}),
        scope: "instance",
        sessionFamilyKey: key,
        historicalInstanceCount: 1,
        ...(row ? { updatedAt: row.updatedAt, chatType: row.chatType } : {}),
        agentId: sessionRows[0]!.agentId,
        creatorKey: '["unknown"]',
        ...(row?.modelProvider ? { modelProvider: row.modelProvider } : {}),
        ...(row?.model ? { model: row.model } : {}),
        usage: sessionUsage(
          sessionRows,
          tools.filter((tool) => tool.sessionKey === key),
        ),
        hasContextWeight: false,
      };
    }),
  );
  const byModel = modelUsage(rows);
  const byProvider = [...grouped(rows, (row) => row.provider)].map(([provider, providerRows]) => ({
    provider,
    count: providerRows.reduce((n: number, row: UsageRow) => n + row.runs, 0),
    totals: sum(providerRows),
  }));
  const days = [...grouped(rows, (row) => row.date)].sort(([a], [b]) => a.localeCompare(b));
  return {
    updatedAt: now,
    startDate,
    endDate,
    sessions,
    totals: sum(rows),
    aggregates: {
      sessionCount: bySession.length,
      messages: messageCounts(rows),
      tools: toolUsage(rows, tools),
      byModel,
      byProvider,
      byAgent: [...grouped(rows, (row: UsageRow) => row.agentId)].map(([agentId, agentRows]) => ({
        agentId,
        totals: sum(agentRows),
      })),
      byChannel: [],
      byCreator: [],
      costDaily: days.map(([date, dayRows]) => ({ date, ...sum(dayRows) })),
      dailyLatency: [],
      modelDaily: rows.map((row) => ({
        date: row.date,
        provider: row.provider,
        model: row.model,
        tokens: row.totalTokens,
        cost: row.inputCost + row.outputCost,
        count: row.runs,
      })),
      daily: days.map(([date, dayRows]) => {
        const totals = sum(dayRows);
        return {
          date,
          tokens: totals.totalTokens,
          cost: totals.totalCost,
          messages: messageCounts(dayRows).total,
          toolCalls: dayRows.reduce((n, row) => n + row.toolCalls, 0),
          errors: dayRows.reduce((n, row) => n + row.errors, 0),
        };
      }),
    },
    creatorOptions: [],
  };
}

/** Runs and totals per provider/model (a session's `modelUsage`, the aggregates' `byModel`). */
function modelUsage(rows: UsageRow[]) {
  return [...grouped(rows, (row) => `${row.provider}/${row.model}`).values()].map((models) => ({
    provider: models[0]!.provider,
    model: models[0]!.model,
    count: models.reduce((n, row) => n + row.runs, 0),
    totals: sum(models),
  }));
}

/** A run is a user turn and an assistant reply; its tool calls each have a result. */
function messageCounts(rows: UsageRow[]) {
  const runs = rows.reduce((n, row) => n + row.runs, 0);
  const toolCalls = rows.reduce((n, row) => n + row.toolCalls, 0);
  const errors = rows.reduce((n, row) => n + row.errors, 0);
  return { total: runs * 2 + toolCalls * 2, user: runs, assistant: runs, toolCalls, toolResults: toolCalls, errors };
}

/**
 * OpenClaw's tool usage: calls in all (every run's count) and per tool name, most called first
 * (names from the runs' tool loop journals).
 */
function toolUsage(rows: UsageRow[], toolRows: ToolUsageRow[]) {
  const counts = new Map<string, number>();
  for (const row of toolRows) counts.set(row.tool, (counts.get(row.tool) ?? 0) + row.calls);
  const tools = [...counts]
    .map(([name, count]) => ({ name, count }))
    .sort((a, b) => b.count - a.count || a.name.localeCompare(b.name));
  return { totalCalls: rows.reduce((n, row) => n + row.toolCalls, 0), uniqueTools: tools.length, tools };
}

function sessionUsage(rows: UsageRow[], toolRows: ToolUsageRow[]) {
  const days = [...grouped(rows, (row) => row.date)].sort(([a], [b]) => a.localeCompare(b));
  const first = Date.parse(`${days[0]![0]}T00:00:00Z`);
  const last = Date.parse(`${days.at(-1)![0]}T23:59:59Z`);
  return {
    ...sum(rows),
    firstActivity: first,
    lastActivity: last,
    activityDates: days.map(([date]) => date),
    dailyBreakdown: days.map(([date, dayRows]) => {
      const totals = sum(dayRows);
      return { date, tokens: totals.totalTokens, cost: totals.totalCost, ...totals };
    }),
    dailyMessageCounts: days.map(([date, dayRows]) => ({ date, ...messageCounts(dayRows) })),
    messageCounts: messageCounts(rows),
    toolUsage: toolUsage(rows, toolRows),
    modelUsage: modelUsage(rows),
  };
}

export const LOG_TAIL_MAX_LINES = 5000;
export const LOG_TAIL_MAX_BYTES = 1_000_000;

/** `logs.tail {cursor?, limit, maxBytes}`: the tenant's own lines, oldest first after `cursor`. */
export async function tailLogs(
  ctx: TenantContext<"index">,
  params: { cursor?: number; limit?: number; maxBytes?: number },
) {
  const tail = await ctx.ledger.readLogs({
    ...(params.cursor !== undefined ? { cursor: params.cursor } : {}),
    limit: Math.min(params.limit ?? 500, LOG_TAIL_MAX_LINES),
    maxBytes: Math.min(params.maxBytes ?? 250_000, LOG_TAIL_MAX_BYTES),
  });
  return { file: `tenant:${ctx.tenantId}`, ...tail, lines: tail.lines.map(logFileLine) };
}

/**
 * A stored line as OpenClaw's log files carry it, so the Control UI's Logs page shows it:
 * `time`, `level`, `subsystem` (the event) and a readable `message`; the fields stay too.
 */
export function logFileLine(stored: string): string {
  const line = JSON.parse(stored) as TenantLogLine;
  const { ts, level: _level, event, tenant: _tenant, ...fields } = line;
  const details = Object.entries(fields)
    .filter(([, value]) => value !== undefined && value !== "")
    .map(([name, value]) => `${name}=${typeof value === "string" ? value : JSON.stringify(value)}`)
    .join(" ");
  return JSON.stringify({ ...line, time: ts, subsystem: event, message: `${event}${details ? ` ${details}` : ""}` });
}
