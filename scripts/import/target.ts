/**
 * Writes into a tenant of this service over its HTTP API: reads what the tenant holds
 * (`GET /v1/sessions`) and posts import pages (`POST /v1/sessions/{key}/import`), retrying
 * 429, 5xx and dropped connections with backoff.
 */

import { type OnRetry, withRetry } from "./retry.ts";
import type { SourceMessage } from "./source.ts";

const LIST_PAGE_ROWS = 500;
const REQUEST_TIMEOUT_MS = 120_000;

export type TargetErrorKind =
  /** Token refused or lacking a scope: nothing will work, stop. */
  | "auth"
  /** Nothing answers at the URL, or not this service. */
  | "connect"
  /** The session exists here in a way an import must not write into. */
  | "conflict"
  /** The page itself was refused (400, 413): the messages in it, or the entry. */
  | "rejected"
  /** Still failing after the retries. */
  | "unavailable";

export class TargetError extends Error {
  readonly kind: TargetErrorKind;
  readonly status: number | undefined;
  /** A 429's Retry-After. */
  readonly retryAfterMs: number | undefined;

  constructor(kind: TargetErrorKind, message: string, status?: number, retryAfterMs?: number) {
    super(message);
    this.kind = kind;
    this.status = status;
    this.retryAfterMs = retryAfterMs;
  }
}

/** What the target holds of a session. */
export type TargetSession = { sessionId: string; messageCount: number; updatedAt: number | undefined };

export type ImportPageBody = {
  sessionId: string;
  entry?: Record<string, unknown>;
  messages: SourceMessage[];
  /** The source was read through this seq (hidden messages included). */
  throughSeq?: number;
};
export type ImportAnswer = { created: boolean; imported: number; skipped: number; lastSeq: number };

type Answer = { status: number; body: Record<string, unknown> | null; retryAfterMs?: number };

export class TargetService {
  private reached = false;
  /** `http://host:port` or `http://host:port/t/<tenant>`, without a trailing slash. */
  readonly baseUrl: string;
  private readonly token: string;
  private readonly onRetry: OnRetry;

  constructor(baseUrl: string, token: string, onRetry: OnRetry = () => {}) {
    this.baseUrl = baseUrl;
    this.token = token;
    this.onRetry = onRetry;
  }

  /** Every session of the tenant (archived, global, unknown included) by key. */
  async sessions(): Promise<Map<string, TargetSession>> {
    const held = new Map<string, TargetSession>();
    for (let offset = 0; ; offset += LIST_PAGE_ROWS) {
      const query = `limit=${LIST_PAGE_ROWS}&offset=${offset}&includeArchived=1&includeGlobal=1&includeUnknown=1`;
      const answer = await this.request("GET", `/v1/sessions?${query}`);
      const rows = Array.isArray(answer.sessions) ? (answer.sessions as Array<Record<string, unknown>>) : [];
      for (const row of rows) {
        if (typeof row.key !== "string" || typeof row.sessionId !== "string") continue;
        held.set(row.key, {
          sessionId: row.sessionId,
          messageCount: typeof row.messageCount === "number" ? row.messageCount : 0,
          updatedAt: typeof row.updatedAt === "number" ? row.updatedAt : undefined,
        });
      }
      if (answer.hasMore !== true || rows.length === 0) return held;
    }
  }

  async importPage(key: string, body: ImportPageBody): Promise<ImportAnswer> {
    const answer = await this.request("POST", `/v1/sessions/${encodeURIComponent(key)}/import`, body);
    return {
      created: answer.created === true,
      imported: typeof answer.imported === "number" ? answer.imported : 0,
      skipped: typeof answer.skipped === "number" ? answer.skipped : 0,
      lastSeq: typeof answer.lastSeq === "number" ? answer.lastSeq : 0,
    };
  }

  private async request(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
    const what = `${method} ${path.split("?")[0]}`;
    const answer = await withRetry(
      () => this.send(method, path, body),
      (error) => {
        if (!(error instanceof TargetError) || error.kind !== "unavailable") return { retry: false };
        return { retry: true, ...(error.retryAfterMs !== undefined ? { afterMs: error.retryAfterMs } : {}) };
      },
      { onRetry: (error, delayMs) => this.onRetry(what, error, delayMs) },
    );
    return answer;
  }

  private async send(method: string, path: string, body: unknown): Promise<Record<string, unknown>> {
    const url = `${this.baseUrl}${path}`;
    const shown = url.split("?")[0];
    let answer: Answer;
    try {
      const res = await fetch(url, {
        method,
        headers: {
          authorization: `Bearer ${this.token}`,
          ...(body !== undefined ? { "content-type": "application/json" } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      const text = await res.text();
      answer = { status: res.status, body: parseObject(text) };
      const retryAfterHeader = Number(res.headers.get("retry-after"));
      if (Number.isFinite(retryAfterHeader) && retryAfterHeader > 0) answer.retryAfterMs = retryAfterHeader * 1000;
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const why = cause?.code ?? cause?.message ?? (error as Error).message;
      // The first request decides whether the URL is right at all; later ones may see a restart.
      if (!this.reached)
        throw new TargetError("connect", `cannot reach the target at ${this.baseUrl} (${why}): check --to`);
      throw new TargetError("unavailable", `${method} ${shown} failed (${why})`);
    }
    this.reached = true;
    return this.judge(answer, method, shown!);
  }

  private judge(answer: Answer, method: string, url: string): Record<string, unknown> {
    const { status, body } = answer;
    const message = errorMessage(body);
    if (status >= 200 && status < 300) {
      if (!body) throw new TargetError("connect", `${url} did not answer with JSON: is --to this service's URL?`);
      return body;
    }
    if (status === 401) {
      throw new TargetError(
        "auth",
        `the target refused the token (401 ${message ?? "Unauthorized"}): check --to-token, and that the tenant in --to exists (${this.baseUrl})`,
        status,
      );
    }
    if (status === 403) {
      throw new TargetError(
        "auth",
        `the target token may not do this (403 ${message ?? "Forbidden"}): it needs operator.write`,
        status,
      );
    }
    if (status === 404 && !body?.error) {
      throw new TargetError("connect", `${url} is not this service's API (404): check --to`, status);
    }
    if (status === 409) throw new TargetError("conflict", message ?? "conflict", status);
    if (status === 429 || status >= 500) {
      const why = `${method} ${url} answered ${status}${message ? ` ${message}` : ""}`;
      throw new TargetError("unavailable", why, status, answer.retryAfterMs);
    }
    throw new TargetError("rejected", `${status} ${message ?? "refused"}`, status);
  }
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function errorMessage(body: Record<string, unknown> | null): string | undefined {
  const error = body?.error as { message?: unknown } | undefined;
  return typeof error?.message === "string" ? error.message : undefined;
}
