import type { Schema } from "../../storage/migrations";
import { all, first } from "../../storage/sql";

/**
 * SQL of a tenant's channel inbox (ChannelInboxObject): every accepted update once per
 * (channel, update id) until it became a turn, a pairing request or was ignored; the pairing
 * requests and the senders approved from them; the bot identity each channel learned.
 */
export const INBOX_SCHEMA: Schema = {
  module: "channel-inbox",
  migrations: [
    {
      name: "create channel_updates",
      sql: `CREATE TABLE channel_updates (
        channel TEXT NOT NULL,
        update_id TEXT NOT NULL,
        body TEXT NOT NULL,
        origin TEXT,
        state TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        acked INTEGER NOT NULL DEFAULT 0,
        outcome TEXT,
        received_at INTEGER NOT NULL,
        PRIMARY KEY (channel, update_id)
      )`,
    },
    {
      name: "index channel_updates_pending",
      sql: "CREATE INDEX channel_updates_pending ON channel_updates (state, received_at)",
    },
    {
      name: "create pairing_requests",
      sql: `CREATE TABLE pairing_requests (
        channel TEXT NOT NULL,
        sender_id TEXT NOT NULL,
        code TEXT NOT NULL,
        chat_id TEXT NOT NULL,
        meta TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        last_seen_at INTEGER NOT NULL,
        approved_at INTEGER,
        PRIMARY KEY (channel, sender_id)
      )`,
    },
    { name: "create channel_meta", sql: "CREATE TABLE channel_meta (channel TEXT PRIMARY KEY, bot TEXT NOT NULL)" },
  ],
};

export type InboxUpdate = {
  channel: string;
  updateId: string;
  body: string;
  origin: string | null;
  attempts: number;
  /** The typing acknowledgement was sent (recorded before sending: a crash never repeats it). */
  acked: boolean;
  /** Not sent yet but already recorded (a burst's seal records it: debounce-store.ts). */
  ackRecorded?: boolean;
  /** When it was accepted (ms): a burst's window runs between its messages' arrivals. */
  receivedAt: number;
};

export type PairingRequest = {
  id: string;
  code: string;
  createdAt: string;
  lastSeenAt: string;
  meta: Record<string, string>;
};

type UpdateRow = {
  channel: string;
  update_id: string;
  body: string;
  origin: string | null;
  attempts: number;
  acked: number;
  received_at: number;
};
function inboxUpdateOf(row: UpdateRow): InboxUpdate {
  return {
    channel: row.channel,
    updateId: row.update_id,
    body: row.body,
    origin: row.origin,
    attempts: row.attempts,
    acked: row.acked === 1,
    receivedAt: row.received_at,
  };
}
type PairingRow = {
  sender_id: string;
  code: string;
  meta: string;
  created_at: number;
  last_seen_at: number;
};

/**
 * Pending pairing requests one channel account holds at once (OpenClaw's PAIRING_PENDING_MAX):
 * a further unknown sender gets no code and no request until one expires or is approved.
 */
export const PAIRING_PENDING_MAX = 3;
/** A pending pairing request's lifetime (OpenClaw's CHANNEL_PAIRING_PENDING_TTL_MS); then the sender gets a new code. */
export const PAIRING_TTL_MS = 3_600_000;

/** Updates kept after they were handled, for dedupe of redeliveries (Telegram retries for ~24 h). */
export const HANDLED_UPDATES_KEPT_MS = 7 * 24 * 60 * 60_000;

export class InboxStore {
  constructor(private readonly sql: SqlStorage) {}

  /** Stores an update once; false when its id was seen before (a duplicate). */
  accept(channel: string, updateId: string, body: string, origin: string | null, now: number): boolean {
    return (
      this.sql.exec(
        `INSERT INTO channel_updates (channel, update_id, body, origin, state, received_at)
         VALUES (?, ?, ?, ?, 'pending', ?) ON CONFLICT DO NOTHING`,
        channel,
        updateId,
        body,
        origin,
        now,
      ).rowsWritten > 0
    );
  }

  /** The oldest update still to handle (a burst's held updates wait for their burst: debounce-store.ts). */
  nextPending(): InboxUpdate | null {
    const row = first<UpdateRow>(
      this.sql,
      "SELECT channel, update_id, body, origin, attempts, acked, received_at FROM channel_updates WHERE state = 'pending' AND burst_key IS NULL ORDER BY received_at, rowid LIMIT 1",
    );
    return row ? inboxUpdateOf(row) : null;
  }

  /**
   * The oldest update still to handle whose turn is not starting now (`starting`: keys of
   * startingKey, at most the lanes' bound of them, so at most that many more rows are read).
   */
  nextPendingBut(starting: ReadonlySet<string>): InboxUpdate | null {
    if (starting.size === 0) return this.nextPending();
    const rows = all<UpdateRow>(
      this.sql,
      "SELECT channel, update_id, body, origin, attempts, acked, received_at FROM channel_updates WHERE state = 'pending' AND burst_key IS NULL ORDER BY received_at, rowid LIMIT ?",
      starting.size + 1,
    );
    const row = rows.find((r) => !starting.has(startingKey(r.channel, r.update_id)));
    return row ? inboxUpdateOf(row) : null;
  }

  /** One update, whatever its state (a held burst's member). */
  update(channel: string, updateId: string): InboxUpdate | null {
    const row = first<UpdateRow>(
      this.sql,
      "SELECT channel, update_id, body, origin, attempts, acked, received_at FROM channel_updates WHERE channel = ? AND update_id = ?",
      channel,
      updateId,
    );
    return row ? inboxUpdateOf(row) : null;
  }

  /** Whether an update waits for the drain (not a burst's held one). */
  hasPending(): boolean {
    return (
      first(this.sql, "SELECT 1 AS one FROM channel_updates WHERE state = 'pending' AND burst_key IS NULL LIMIT 1") !==
      undefined
    );
  }

  /** Whether any update is not handled yet, held ones included (a new instance drains then). */
  hasOpen(): boolean {
    return first(this.sql, "SELECT 1 AS one FROM channel_updates WHERE state = 'pending' LIMIT 1") !== undefined;
  }

  countAttempt(channel: string, updateId: string): void {
    this.sql.exec(
      "UPDATE channel_updates SET attempts = attempts + 1 WHERE channel = ? AND update_id = ?",
      channel,
      updateId,
    );
  }

  markAcked(channel: string, updateId: string): void {
    this.sql.exec("UPDATE channel_updates SET acked = 1 WHERE channel = ? AND update_id = ?", channel, updateId);
  }

  /** The update was handled (`outcome` says how); its body (and a burst's turn) dropped, its id kept for dedupe. */
  finish(channel: string, updateId: string, outcome: string, now: number): void {
    this.sql.exec(
      "UPDATE channel_updates SET state = 'done', body = '', turn = NULL, outcome = ? WHERE channel = ? AND update_id = ?",
      outcome,
      channel,
      updateId,
    );
    this.sql.exec(
      "DELETE FROM channel_updates WHERE state = 'done' AND received_at < ?",
      now - HANDLED_UPDATES_KEPT_MS,
    );
  }

  /** Counts by state, for channels.status. */
  counts(channel: string): { pending: number; handled: number } {
    const rows = all<{ state: string; n: number }>(
      this.sql,
      "SELECT state, count(*) AS n FROM channel_updates WHERE channel = ? GROUP BY state",
      channel,
    );
    const of = (state: string) => rows.find((r) => r.state === state)?.n ?? 0;
    // `held`: a burst's update as an older version kept it (migrated to `pending`; debounce-store.ts).
    return { pending: of("pending") + of("held"), handled: of("done") };
  }

  // ── Pairing ─────────────────────────────────────────────────────────────

  /** The request of a sender, if any; an unapproved one past its lifetime is dropped first. */
  pairingOf(channel: string, senderId: string, now: number): { code: string; approved: boolean } | null {
    this.sql.exec(
      "DELETE FROM pairing_requests WHERE channel = ? AND sender_id = ? AND approved_at IS NULL AND created_at <= ?",
      channel,
      senderId,
      now - PAIRING_TTL_MS,
    );
    const row = first<{ code: string; approved_at: number | null }>(
      this.sql,
      "SELECT code, approved_at FROM pairing_requests WHERE channel = ? AND sender_id = ?",
      channel,
      senderId,
    );
    return row ? { code: row.code, approved: row.approved_at !== null } : null;
  }

  addPairing(
    channel: string,
    request: { senderId: string; code: string; chatId: string; meta: Record<string, string> },
    now: number,
  ): void {
    this.sql.exec(
      `INSERT INTO pairing_requests (channel, sender_id, code, chat_id, meta, created_at, last_seen_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
      channel,
      request.senderId,
      request.code,
      request.chatId,
      JSON.stringify(request.meta),
      now,
      now,
    );
  }

  touchPairing(channel: string, senderId: string, now: number): void {
    this.sql.exec(
      "UPDATE pairing_requests SET last_seen_at = ? WHERE channel = ? AND sender_id = ?",
      now,
      channel,
      senderId,
    );
  }

  /** Requests not approved yet, oldest first (OpenClaw's `pairing list` shape). */
  pendingPairings(channel: string, now: number): PairingRequest[] {
    return all<PairingRow>(
      this.sql,
      "SELECT sender_id, code, meta, created_at, last_seen_at FROM pairing_requests WHERE channel = ? AND approved_at IS NULL AND created_at > ? ORDER BY created_at",
      channel,
      now - PAIRING_TTL_MS,
    ).map((row) => ({
      id: row.sender_id,
      code: row.code,
      createdAt: new Date(row.created_at).toISOString(),
      lastSeenAt: new Date(row.last_seen_at).toISOString(),
      meta: JSON.parse(row.meta) as Record<string, string>,
    }));
  }

  /** Approves the pending request with this code; the sender id, or null when no such request. */
  approve(channel: string, code: string, now: number): string | null {
    const row = first<{ sender_id: string }>(
      this.sql,
      "SELECT sender_id FROM pairing_requests WHERE channel = ? AND code = ? AND approved_at IS NULL AND created_at > ?",
      channel,
      code.trim().toUpperCase(),
      now - PAIRING_TTL_MS,
    );
    if (!row) return null;
    this.sql.exec(
      "UPDATE pairing_requests SET approved_at = ? WHERE channel = ? AND sender_id = ?",
      now,
      channel,
      row.sender_id,
    );
    return row.sender_id;
  }

  approvedSenders(channel: string): Set<string> {
    return new Set(
      all<{ sender_id: string }>(
        this.sql,
        "SELECT sender_id FROM pairing_requests WHERE channel = ? AND approved_at IS NOT NULL",
        channel,
      ).map((r) => r.sender_id),
    );
  }

  // ── Bot identity ────────────────────────────────────────────────────────

  bot<T>(channel: string): T | null {
    const row = first<{ bot: string }>(this.sql, "SELECT bot FROM channel_meta WHERE channel = ?", channel);
    return row ? (JSON.parse(row.bot) as T) : null;
  }

  saveBot(channel: string, bot: unknown): void {
    this.sql.exec(
      "INSERT INTO channel_meta (channel, bot) VALUES (?, ?) ON CONFLICT (channel) DO UPDATE SET bot = excluded.bot",
      channel,
      JSON.stringify(bot),
    );
  }
}

/** An update's key among the ones whose turn is starting (InboxStore.nextPendingBut). */
export function startingKey(channel: string, updateId: string): string {
  return `${channel}\u0000${updateId}`;
}
