import type { Delivery, DeliveryInput, DeliveryStatus, DeliveryTarget, ReplyHint } from "../model/delivery";
import type { Schema } from "../storage/migrations";
import { all, first } from "../storage/sql";

/** SQL of a session's delivery outbox ("posted to a channel" = a row here until delivered). */

export const DELIVERY_SCHEMA: Schema = {
  module: "delivery",
  migrations: [
    {
      name: "create deliveries",
      sql: `CREATE TABLE deliveries (
        id TEXT PRIMARY KEY,
        idempotency_key TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL,
        target TEXT NOT NULL,
        message TEXT NOT NULL,
        status TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        delivered_to TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      )`,
    },
    { name: "index deliveries_by_created", sql: "CREATE INDEX deliveries_by_created ON deliveries (created_at DESC)" },
    // A chat reply goes out in parts (Telegram: 4,000 characters each); a retry starts at the first unsent one.
    {
      name: "add deliveries.parts_sent",
      sql: "ALTER TABLE deliveries ADD COLUMN parts_sent INTEGER NOT NULL DEFAULT 0",
    },
    // A chat reply's ReplyHint (LINE's reply token), as JSON: kept with the row so a retry after a restart still has it.
    { name: "add deliveries.reply_hint", sql: "ALTER TABLE deliveries ADD COLUMN reply_hint TEXT" },
    // Slack's `/status` card goes as Block Kit blocks beside its text: part of what is owed, so a retry posts the same.
    { name: "add deliveries.blocks", sql: "ALTER TABLE deliveries ADD COLUMN blocks TEXT" },
    // Billing (issue 48): a rowid table with a TEXT primary key writes the row and a key index; keyed
    // by its id itself, a new delivery is three rows written (row, idempotency key, created_at), not four.
    {
      name: "deliveries keyed by id",
      sql: `CREATE TABLE deliveries_by_id (
          id TEXT PRIMARY KEY,
          idempotency_key TEXT NOT NULL UNIQUE,
          kind TEXT NOT NULL,
          target TEXT NOT NULL,
          message TEXT NOT NULL,
          status TEXT NOT NULL,
          attempts INTEGER NOT NULL DEFAULT 0,
          last_error TEXT,
          delivered_to TEXT,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL,
          parts_sent INTEGER NOT NULL DEFAULT 0,
          reply_hint TEXT,
          blocks TEXT
        ) WITHOUT ROWID;
        INSERT INTO deliveries_by_id (id, idempotency_key, kind, target, message, status, attempts, last_error,
            delivered_to, created_at, updated_at, parts_sent, reply_hint, blocks)
          SELECT id, idempotency_key, kind, target, message, status, attempts, last_error,
            delivered_to, created_at, updated_at, parts_sent, reply_hint, blocks FROM deliveries;
        DROP TABLE deliveries;
        ALTER TABLE deliveries_by_id RENAME TO deliveries;
        CREATE INDEX deliveries_by_created ON deliveries (created_at DESC)`,
    },
  ],
};

type Row = {
  id: string;
  idempotency_key: string;
  kind: string;
  target: string;
  message: string;
  status: string;
  attempts: number;
  last_error: string | null;
  delivered_to: string | null;
  created_at: number;
  updated_at: number;
  parts_sent: number;
  reply_hint: string | null;
  blocks: string | null;
};

/** Deliveries listed at most per request. */
const MAX_DELIVERIES_LISTED = 500;

export class DeliveryStore {
  constructor(private readonly sql: SqlStorage) {}

  /** Inserts a delivery once per idempotency key; returns the existing one on repeats. */
  enqueue(input: DeliveryInput, at: number): Delivery {
    const existing = this.byKey(input.idempotencyKey);
    if (existing) return existing;
    const id = crypto.randomUUID();
    this.sql.exec(
      "INSERT INTO deliveries (id, idempotency_key, kind, target, message, blocks, status, created_at, updated_at, reply_hint) VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?)",
      id,
      input.idempotencyKey,
      input.kind,
      JSON.stringify(input.target),
      input.message,
      input.blocks ? JSON.stringify(input.blocks) : null,
      at,
      at,
      input.replyHint ? JSON.stringify(input.replyHint) : null,
    );
    return this.get(id)!;
  }

  get(id: string): Delivery | undefined {
    const row = first<Row>(this.sql, "SELECT * FROM deliveries WHERE id = ?", id);
    return row && toDelivery(row);
  }

  byKey(idempotencyKey: string): Delivery | undefined {
    const row = first<Row>(this.sql, "SELECT * FROM deliveries WHERE idempotency_key = ?", idempotencyKey);
    return row && toDelivery(row);
  }

  /** Deliveries still owed (their attempts run by timer). */
  pendingIds(): string[] {
    return all<{ id: string }>(this.sql, "SELECT id FROM deliveries WHERE status = 'pending'").map((r) => r.id);
  }

  /**
   * The newest deliveries, at most MAX_DELIVERIES_LISTED, as clients see them: without a reply
   * hint (a platform's one-time reply token can send as the bot; a reader of the list must not).
   */
  list(limit: number): Delivery[] {
    const bounded = Math.min(MAX_DELIVERIES_LISTED, Math.max(1, limit));
    const rows = all<Row>(this.sql, "SELECT * FROM deliveries ORDER BY created_at DESC LIMIT ?", bounded);
    return rows.map((row) => toDelivery({ ...row, reply_hint: null }));
  }

  /** Parts of a pending delivery that are out (kept across attempts, so no part is sent twice). */
  recordPartsSent(id: string, partsSent: number): void {
    this.sql.exec("UPDATE deliveries SET parts_sent = ? WHERE id = ? AND status = 'pending'", partsSent, id);
  }

  /** Records an attempt's outcome (only while pending: a late duplicate changes nothing). */
  record(id: string, outcome: { status: DeliveryStatus; error?: string; deliveredTo?: string }, at: number): boolean {
    return (
      this.sql.exec(
        `UPDATE deliveries SET status = ?, attempts = attempts + 1, last_error = ?, delivered_to = coalesce(?, delivered_to), updated_at = ?
         WHERE id = ? AND status = 'pending'`,
        outcome.status,
        outcome.error ?? null,
        outcome.deliveredTo ?? null,
        at,
        id,
      ).rowsWritten > 0
    );
  }
}

function toDelivery(row: Row): Delivery {
  return {
    id: row.id,
    idempotencyKey: row.idempotency_key,
    kind: row.kind,
    target: JSON.parse(row.target) as DeliveryTarget,
    message: row.message,
    ...(row.blocks ? { blocks: JSON.parse(row.blocks) as Record<string, unknown>[] } : {}),
    status: row.status as DeliveryStatus,
    attempts: row.attempts,
    partsSent: row.parts_sent,
    ...(row.last_error !== null ? { lastError: row.last_error } : {}),
    ...(row.delivered_to !== null ? { deliveredTo: row.delivered_to } : {}),
    ...(row.reply_hint ? { replyHint: JSON.parse(row.reply_hint) as ReplyHint } : {}),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
