/**
 * Reads a source gateway over the protocol only: `sessions.list` pages (offset) and
 * `chat.history` pages (offset from the newest message), so it works against the real
 * OpenClaw gateway and against this service. The connection is reopened when it drops.
 */
import { type MappedRow, mapRow } from "./entry-map.ts";
import { GatewayClient, GatewayError } from "./gateway-client.ts";
import { type OnRetry, withRetry } from "./retry.ts";

/** Rows per sessions.list page. */
const LIST_PAGE_ROWS = 200;
/** chat.history's text cap, raised to its maximum so long messages come over whole. */
const HISTORY_MAX_CHARS = 500_000;
/**
 * chat.history drops the oldest messages of a page over this many bytes (OpenClaw's and this
 * service's budget); a page this far below it was not cut, whatever it lacks was hidden.
 */
const HISTORY_BUDGET_BYTES = 6 * 1024 * 1024;
const LARGEST_SHOWN_MESSAGE_BYTES = 128 * 1024;

export const MESSAGE_ROLES = ["user", "assistant", "toolResult", "system"];

/** A message as the import page carries it: the source message with its source position. */
export type SourceMessage = Record<string, unknown> & {
  role: string;
  __openclaw: { id: string; seq: number; recordTimestampMs?: number };
};

/** One contiguous stretch of a source transcript: every seq in (after, through] was read. */
export type SourcePage = { messages: SourceMessage[]; through: number; skipped: Map<string, number> };

export class SourceChangedError extends Error {}

type HistoryPayload = {
  sessionId?: unknown;
  messages?: unknown;
  hasMore?: unknown;
  nextOffset?: unknown;
  totalMessages?: unknown;
};

export class SourceGateway {
  private client: GatewayClient | null = null;
  private connecting: Promise<GatewayClient> | null = null;
  /** Once connected, a failed reconnect is an outage to wait out, not a wrong address. */
  private connectedOnce = false;
  /** Row fields without an equivalent in the target, over all rows. */
  readonly unmapped = new Set<string>();
  readonly url: string;
  private readonly token: string;
  private readonly clientVersion: string;
  private readonly onRetry: OnRetry;

  constructor(url: string, token: string, clientVersion: string, onRetry: OnRetry = () => {}) {
    this.url = url;
    this.token = token;
    this.clientVersion = clientVersion;
    this.onRetry = onRetry;
  }

  /** Connects (or reuses the connection); auth and address errors are thrown as they are. */
  async open(): Promise<GatewayClient> {
    if (this.client?.isOpen) return this.client;
    this.connecting ??= GatewayClient.connect(this.url, this.token, this.clientVersion).finally(() => {
      this.connecting = null;
    });
    this.client = await this.connecting;
    this.connectedOnce = true;
    return this.client;
  }

  close(): void {
    this.client?.close();
  }

  /** A request that survives dropped connections and "unavailable" answers (with backoff). */
  async call(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const payload = await withRetry(
      async () => (await this.open()).request(method, params),
      (error) => {
        if (!(error instanceof GatewayError)) return { retry: false };
        if (error.kind === "transport" || (error.kind === "connect" && this.connectedOnce)) return { retry: true };
        if (error.kind === "request" && error.retryable) {
          return { retry: true, ...(error.retryAfterMs !== undefined ? { afterMs: error.retryAfterMs } : {}) };
        }
        return { retry: false };
      },
      { onRetry: (error, delayMs) => this.onRetry(method, error, delayMs) },
    );
    return payload && typeof payload === "object" ? (payload as Record<string, unknown>) : {};
  }

  /**
   * Every session the token can see (archived, global and unknown included), each once.
   * Gateways that refuse the archived filter or offset paging are read as far as they allow
   * (`complete: false`).
   */
  async listSessions(): Promise<{ rows: MappedRow[]; unnamed: number; complete: boolean }> {
    const base = { includeGlobal: true, includeUnknown: true };
    const attempts = [
      { params: { ...base, archived: "all" }, paged: true },
      { params: base, paged: true },
      { params: base, paged: false },
    ];
    for (const [index, attempt] of attempts.entries()) {
      const byKey = new Map<string, MappedRow>();
      let unnamed = 0;
      try {
        if (!attempt.paged) {
          unnamed += this.collect(await this.call("sessions.list", attempt.params), byKey);
        } else {
          for (let offset = 0; ; ) {
            const payload = await this.call("sessions.list", { ...attempt.params, limit: LIST_PAGE_ROWS, offset });
            unnamed += this.collect(payload, byKey);
            const rows = Array.isArray(payload.sessions) ? payload.sessions.length : 0;
            if (payload.hasMore !== true || rows === 0) break;
            const next = typeof payload.nextOffset === "number" ? payload.nextOffset : offset + rows;
            offset = next > offset ? next : offset + rows;
          }
        }
      } catch (error) {
        const refused = error instanceof GatewayError && error.code === "INVALID_REQUEST";
        if (refused && index < attempts.length - 1 && byKey.size === 0) continue;
        throw error;
      }
      return { rows: [...byKey.values()], unnamed, complete: index === 0 };
    }
    throw new Error("unreachable");
  }

  /** Adds a page's rows; answers how many rows named no session. */
  private collect(payload: Record<string, unknown>, byKey: Map<string, MappedRow>): number {
    let unnamed = 0;
    for (const raw of Array.isArray(payload.sessions) ? payload.sessions : []) {
      const row = raw && typeof raw === "object" ? mapRow(raw as Record<string, unknown>) : null;
      if (!row) {
        unnamed++;
        continue;
      }
      for (const field of row.unmapped) this.unmapped.add(field);
      if (!byKey.has(row.key)) byKey.set(row.key, row);
    }
    return unnamed;
  }

  /** The transcript's current id and length (one message read). */
  async probe(key: string): Promise<{ sessionId: string | undefined; totalMessages: number; paged: boolean }> {
    const payload = (await this.call("chat.history", {
      sessionKey: key,
      limit: 1,
      maxChars: HISTORY_MAX_CHARS,
    })) as HistoryPayload;
    const messages = Array.isArray(payload.messages) ? payload.messages : [];
    const paged = typeof payload.totalMessages === "number";
    const newestSeq = seqOf(messages.at(-1));
    return {
      sessionId: typeof payload.sessionId === "string" ? payload.sessionId : undefined,
      totalMessages: paged ? (payload.totalMessages as number) : (newestSeq ?? messages.length),
      paged,
    };
  }

  /**
   * The messages after seq `after`, oldest first, as pages of at most `pageSize`. Each page
   * asks for the window (after, after + n] by its offset from the newest message; a page the
   * byte budget cut short is asked again smaller, a transcript that grew meanwhile is asked
   * again at the new offset, a reset one ends the read (SourceChangedError).
   */
  async *pages(key: string, sessionId: string, after: number, total: number, pageSize: number) {
    let window = pageSize;
    let known = total;
    while (after < known) {
      const count = Math.min(window, known - after);
      const offset = known - after - count;
      const payload = (await this.call("chat.history", {
        sessionKey: key,
        limit: count,
        offset,
        maxChars: HISTORY_MAX_CHARS,
      })) as HistoryPayload;
      if (typeof payload.sessionId === "string" && payload.sessionId !== sessionId) {
        throw new SourceChangedError(`the source session was reset while it was read (now ${payload.sessionId})`);
      }
      const totalNow = typeof payload.totalMessages === "number" ? payload.totalMessages : known;
      if (totalNow < known) throw new SourceChangedError("the source transcript shrank while it was read");
      if (totalNow > known) {
        // Messages arrived meanwhile, so the offset pointed elsewhere: ask again.
        known = totalNow;
        continue;
      }
      const messages = Array.isArray(payload.messages) ? (payload.messages as unknown[]) : [];
      const end = known - offset;
      const reachedBack =
        payload.hasMore !== true ||
        typeof payload.nextOffset !== "number" ||
        known - payload.nextOffset <= after ||
        Buffer.byteLength(JSON.stringify(messages)) < HISTORY_BUDGET_BYTES - 2 * LARGEST_SHOWN_MESSAGE_BYTES;
      if (!reachedBack) {
        // Cut by the byte budget: ask for what fitted, then grow again.
        window = Math.max(1, end - (known - (payload.nextOffset as number)));
        continue;
      }
      yield pageOf(messages, after, end);
      after = end;
      window = Math.min(pageSize, window * 2);
    }
  }

  /** For gateways without history paging: the newest page only (up to 1,000 messages). */
  async newestPage(key: string, after: number): Promise<SourcePage> {
    const payload = (await this.call("chat.history", {
      sessionKey: key,
      limit: 1000,
      maxChars: HISTORY_MAX_CHARS,
    })) as HistoryPayload;
    const messages = Array.isArray(payload.messages) ? (payload.messages as unknown[]) : [];
    const end = seqOf(messages.at(-1)) ?? after;
    return pageOf(messages, after, Math.max(after, end));
  }
}

/** Keeps the messages of (after, end] that can be imported; counts the others by reason. */
function pageOf(raw: unknown[], after: number, end: number): SourcePage {
  const skipped = new Map<string, number>();
  const skip = (reason: string) => skipped.set(reason, (skipped.get(reason) ?? 0) + 1);
  const messages: SourceMessage[] = [];
  let last = after;
  for (const item of raw) {
    if (!item || typeof item !== "object") continue;
    const message = item as Record<string, unknown>;
    const position = message.__openclaw as Record<string, unknown> | undefined;
    const seq = position?.seq;
    const id = position?.id;
    if (typeof seq !== "number" || !Number.isInteger(seq) || typeof id !== "string" || id === "") {
      skip("no message id or seq in the source's chat.history");
      continue;
    }
    if (seq <= after || seq > end) continue;
    if (seq <= last) {
      skip("a second display message of one source record (the first was kept)");
      continue;
    }
    if (position?.truncated === true) {
      skip("over the source's chat.history size limit (it shows a placeholder)");
      continue;
    }
    if (typeof message.role !== "string" || !MESSAGE_ROLES.includes(message.role)) {
      skip(`role ${JSON.stringify(message.role)} has no equivalent here`);
      continue;
    }
    const recorded = position?.recordTimestampMs;
    messages.push({
      ...message,
      role: message.role,
      __openclaw: { id, seq, ...(typeof recorded === "number" ? { recordTimestampMs: recorded } : {}) },
    });
    last = seq;
  }
  return { messages, through: end, skipped };
}

function seqOf(message: unknown): number | undefined {
  const seq = (message as { __openclaw?: { seq?: unknown } } | undefined)?.__openclaw?.seq;
  return typeof seq === "number" ? seq : undefined;
}
