import type { Page, PageQuery } from "../contracts/session-api";
import type { MessageRecord } from "../model/message-record";
import type { SessionEntry } from "../protocol/session";
import type { RunStore } from "../runs/run-store";
import type { Schema } from "../storage/migrations";
import { all, first } from "../storage/sql";

/**
 * The SQL of a session's entry and transcript (its own tables; the object's database and the
 * engines' stores are opened in session-database.ts). The transcript is append-only and
 * keyed by (session_id, seq); every read is a bounded page over that index, never a full scan.
 */

export const SESSION_SCHEMA: Schema = {
  module: "session",
  migrations: [
    {
      name: "create meta",
      sql: "CREATE TABLE meta (id INTEGER PRIMARY KEY CHECK (id = 1), tenant_id TEXT NOT NULL, session_key TEXT NOT NULL)",
    },
    {
      name: "create entry",
      sql: "CREATE TABLE entry (id INTEGER PRIMARY KEY CHECK (id = 1), json TEXT NOT NULL, version INTEGER NOT NULL, indexed_version INTEGER NOT NULL DEFAULT 0)",
    },
    {
      name: "create messages",
      sql: `CREATE TABLE messages (
        pos INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        id TEXT NOT NULL,
        role TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        body TEXT NOT NULL,
        UNIQUE (session_id, seq)
      )`,
    },
    {
      name: "create transcripts",
      sql: "CREATE TABLE transcripts (session_id TEXT PRIMARY KEY, started_at INTEGER NOT NULL, ended_at INTEGER)",
    },
    {
      name: "create idempotency",
      sql: "CREATE TABLE idempotency (key TEXT PRIMARY KEY, response TEXT NOT NULL, created_at INTEGER NOT NULL)",
    },
    // How far the tenant has acknowledged this session's messages (the transcript is the outbox).
    { name: "add entry.published_session_id", sql: "ALTER TABLE entry ADD COLUMN published_session_id TEXT" },
    { name: "add entry.published_seq", sql: "ALTER TABLE entry ADD COLUMN published_seq INTEGER NOT NULL DEFAULT 0" },
    // How far imports wrote a transcript (NULL: not created by an import); see import-plan.ts.
    { name: "add transcripts.imported_through", sql: "ALTER TABLE transcripts ADD COLUMN imported_through INTEGER" },
    // The UTF-8 bytes of each transcript's message bodies, kept as messages are written, so the
    // object's size is known without reading them (message-limits.ts: SESSION_MESSAGE_MAX_BYTES).
    { name: "add transcripts.bytes", sql: "ALTER TABLE transcripts ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0" },
    {
      name: "count transcripts.bytes",
      sql: `UPDATE transcripts SET bytes = (
        SELECT coalesce(sum(length(CAST(body AS BLOB))), 0) FROM messages WHERE messages.session_id = transcripts.session_id)`,
    },
    // A message is one row written, not three (issue 48): keyed by its position (no rowid and no
    // separate unique index), and carrying its transcript's UTF-8 bytes through itself, so the
    // object's size is read from each transcript's last message instead of a counter row
    // rewritten per message (`transcripts.bytes` is no longer kept).
    {
      name: "messages keyed by position, with bytes through",
      sql: `CREATE TABLE messages_by_position (
          session_id TEXT NOT NULL,
          seq INTEGER NOT NULL,
          id TEXT NOT NULL,
          role TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          body TEXT NOT NULL,
          bytes_through INTEGER NOT NULL,
          PRIMARY KEY (session_id, seq)
        ) WITHOUT ROWID;
        INSERT INTO messages_by_position (session_id, seq, id, role, created_at, body, bytes_through)
          SELECT session_id, seq, id, role, created_at, body,
            sum(length(CAST(body AS BLOB))) OVER (PARTITION BY session_id ORDER BY seq)
          FROM messages;
        DROP TABLE messages;
        ALTER TABLE messages_by_position RENAME TO messages`,
    },
  ],
};

export type EntryState = {
  entry: SessionEntry;
  version: number;
  indexedVersion: number;
  publishedSessionId: string | null;
  publishedSeq: number;
};

/** The entry row's version columns, as stored. */
type EntryVersionRow = {
  version: number;
  indexed_version: number;
  published_session_id: string | null;
  published_seq: number;
};
const ENTRY_VERSION_COLUMNS = "version, indexed_version, published_session_id, published_seq";

function entryState(entry: SessionEntry, row: EntryVersionRow): EntryState {
  return {
    entry,
    version: row.version,
    indexedVersion: row.indexed_version,
    publishedSessionId: row.published_session_id,
    publishedSeq: row.published_seq,
  };
}

/** Ingest idempotency keys are honoured for a day (OpenClaw's gateway dedupe keeps 5 minutes). */
const IDEMPOTENCY_TTL_MS = 24 * 60 * 60_000;
const IDEMPOTENCY_PRUNE_EVERY = 200;

type MessageRow = { seq: number; id: string; role: string; created_at: number; body: string };

export class SessionStore {
  private readonly sql: SqlStorage;

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly database: {
      /** Creates every module's schema anew in an emptied database (after wipe). */
      recreateSchemas(): void;
      /** The runs of a transcript's messages, for each message's `__openclaw` fields. */
      runs: Pick<RunStore, "forMessages">;
    },
  ) {
    this.sql = storage.sql;
  }

  /**
   * Deletes everything this object stored (the session was deleted) and starts over with an
   * empty schema, so the same store keeps serving (a later append may create the key anew).
   */
  async wipe(): Promise<void> {
    await this.storage.deleteAlarm();
    await this.storage.deleteAll();
    this.state = undefined;
    this.entryDirty = false;
    this.who = undefined;
    this.database.recreateSchemas();
  }

  /**
   * Runs `fn` atomically; a throw rolls the writes back and drops the in-memory copies. The
   * entry is written once, when the outermost transaction ends, however often it changed inside
   * (an append and its run's start are one row written, not two: issue 48).
   */
  transaction<T>(fn: () => T): T {
    const outer = { state: this.state, entryDirty: this.entryDirty };
    this.depth++;
    try {
      return this.storage.transactionSync(() => {
        const result = fn();
        if (this.depth === 1) this.writeEntry();
        return result;
      });
    } catch (error) {
      this.who = undefined;
      // A nested transaction rolls back to its start: the entry as the outer one had it stays
      // (unwritten yet); the outermost rolls everything back: the entry is read again.
      this.state = this.depth > 1 ? outer.state : undefined;
      this.entryDirty = this.depth > 1 ? outer.entryDirty : false;
      throw error;
    } finally {
      this.depth--;
    }
  }

  /** How deep in transaction() the caller is (0: outside). */
  private depth = 0;
  /** The in-memory entry has changes not written yet (only inside a transaction). */
  private entryDirty = false;

  // The entry row is read on every append and publish; it is kept in memory (undefined =
  // not read yet, null = no entry) and updated with every write.
  private state: EntryState | null | undefined;
  private idempotencyWrites = 0;
  private who: { tenantId: string; sessionKey: string } | null | undefined;

  identity(): { tenantId: string; sessionKey: string } | undefined {
    if (this.who === undefined) {
      const row = first<{ tenant_id: string; session_key: string }>(
        this.sql,
        "SELECT tenant_id, session_key FROM meta",
      );
      this.who = row ? { tenantId: row.tenant_id, sessionKey: row.session_key } : null;
    }
    return this.who ?? undefined;
  }

  setIdentity(tenantId: string, sessionKey: string): void {
    this.who = { tenantId, sessionKey };
    this.sql.exec(
      "INSERT INTO meta (id, tenant_id, session_key) VALUES (1, ?, ?) ON CONFLICT(id) DO UPDATE SET tenant_id = excluded.tenant_id, session_key = excluded.session_key",
      tenantId,
      sessionKey,
    );
  }

  /** The entry with its version and how far the tenant acknowledged it (the cached copy: do not mutate). */
  loadEntry(): EntryState | undefined {
    if (this.state === undefined) {
      const row = first<EntryVersionRow & { json: string }>(
        this.sql,
        `SELECT json, ${ENTRY_VERSION_COLUMNS} FROM entry WHERE id = 1`,
      );
      this.state = row ? entryState(JSON.parse(row.json) as SessionEntry, row) : null;
    }
    return this.state ?? undefined;
  }

  /**
   * Stores the entry and returns its new version (bumped on every change). Inside a
   * transaction the write waits for its end (transaction()); readers see the new entry at once.
   */
  saveEntry(entry: SessionEntry): number {
    const current = this.loadEntry();
    this.state = {
      indexedVersion: current?.indexedVersion ?? 0,
      publishedSessionId: current?.publishedSessionId ?? null,
      publishedSeq: current?.publishedSeq ?? 0,
      entry,
      version: (current?.version ?? 0) + 1,
    };
    this.entryDirty = true;
    if (this.depth === 0) this.writeEntry();
    return this.state.version;
  }

  /** Writes the in-memory entry when it changed since the last write. */
  private writeEntry(): void {
    if (!this.entryDirty || !this.state) return;
    this.entryDirty = false;
    this.sql.exec(
      `INSERT INTO entry (id, json, version) VALUES (1, ?, ?)
       ON CONFLICT(id) DO UPDATE SET json = excluded.json, version = excluded.version`,
      JSON.stringify(this.state.entry),
      this.state.version,
    );
  }

  /**
   * Takes over an entry the tenant created and already indexed (a pending session): same
   * version, acknowledged as is, so adopting it publishes nothing.
   */
  adoptEntry(entry: SessionEntry, version: number): void {
    this.sql.exec(
      "INSERT INTO entry (id, json, version, indexed_version, published_session_id, published_seq) VALUES (1, ?, ?, ?, ?, 0)",
      JSON.stringify(entry),
      version,
      version,
      entry.sessionId,
    );
    this.state = {
      entry,
      version,
      indexedVersion: version,
      publishedSessionId: entry.sessionId,
      publishedSeq: 0,
    };
  }

  /** Records what the tenant acknowledged: the entry version and the last message seq. */
  markPublished(version: number, sessionId: string, seq: number): void {
    this.writeEntry();
    this.sql.exec(
      "UPDATE entry SET indexed_version = max(indexed_version, ?), published_session_id = ?, published_seq = ? WHERE id = 1",
      version,
      sessionId,
      seq,
    );
    const state = this.loadEntry();
    if (state)
      this.state = {
        ...state,
        indexedVersion: Math.max(state.indexedVersion, version),
        publishedSessionId: sessionId,
        publishedSeq: seq,
      };
  }

  published(): { sessionId: string | null; seq: number } {
    const state = this.loadEntry();
    return { sessionId: state?.publishedSessionId ?? null, seq: state?.publishedSeq ?? 0 };
  }

  startTranscript(sessionId: string, at: number): void {
    this.sql.exec("INSERT OR IGNORE INTO transcripts (session_id, started_at) VALUES (?, ?)", sessionId, at);
  }

  endTranscript(sessionId: string, at: number): void {
    this.sql.exec("UPDATE transcripts SET ended_at = ? WHERE session_id = ?", at, sessionId);
  }

  transcriptStartedAt(sessionId: string): number | undefined {
    return first<{ started_at: number }>(this.sql, "SELECT started_at FROM transcripts WHERE session_id = ?", sessionId)
      ?.started_at;
  }

  /** The last seq imports wrote into this transcript; null when it was not created by an import. */
  importedThrough(sessionId: string): number | null {
    return (
      first<{ imported_through: number | null }>(
        this.sql,
        "SELECT imported_through FROM transcripts WHERE session_id = ?",
        sessionId,
      )?.imported_through ?? null
    );
  }

  setImportedThrough(sessionId: string, seq: number): void {
    this.sql.exec("UPDATE transcripts SET imported_through = ? WHERE session_id = ?", seq, sessionId);
  }

  insertMessage(sessionId: string, record: Omit<MessageRecord, "json">, body: string): void {
    // The body is bound once and measured in SQL; the bytes through the previous message come
    // from its row (messages are appended in seq order).
    this.sql.exec(
      `INSERT INTO messages (session_id, seq, id, role, created_at, body, bytes_through)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, length(CAST(?6 AS BLOB)) + coalesce(
         (SELECT bytes_through FROM messages WHERE session_id = ?1 AND seq < ?2 ORDER BY seq DESC LIMIT 1), 0))`,
      sessionId,
      record.seq,
      record.id,
      record.role,
      record.createdAt,
      body,
    );
  }

  /** The UTF-8 bytes of every message body this object holds (all its transcripts): a row or two read per transcript. */
  messageBytes(): number {
    return (
      first<{ n: number }>(
        this.sql,
        `SELECT coalesce(sum((SELECT bytes_through FROM messages m WHERE m.session_id = t.session_id
           ORDER BY seq DESC LIMIT 1)), 0) AS n FROM transcripts t`,
      )?.n ?? 0
    );
  }

  /** Newest messages before `cursorSeq`, returned oldest first. */
  tail(query: PageQuery): Page {
    const upper = query.cursorSeq ?? Number.MAX_SAFE_INTEGER;
    const cursor = this.sql.exec<MessageRow>(
      `SELECT seq, id, role, created_at, body FROM messages
       WHERE session_id = ? AND seq < ? ${query.includeTools ? "" : "AND role <> 'toolResult'"}
       ORDER BY seq DESC LIMIT ?`,
      query.sessionId,
      upper,
      query.limit + 1,
    );
    const { rows, hasMore } = collect(cursor, query);
    rows.reverse();
    return { messages: this.records(query.sessionId, rows), hasMore };
  }

  /** Oldest messages after `cursorSeq`, oldest first. */
  forward(query: PageQuery): Page {
    const cursor = this.sql.exec<MessageRow>(
      `SELECT seq, id, role, created_at, body FROM messages
       WHERE session_id = ? AND seq > ? ${query.includeTools ? "" : "AND role <> 'toolResult'"}
       ORDER BY seq ASC LIMIT ?`,
      query.sessionId,
      query.cursorSeq ?? 0,
      query.limit + 1,
    );
    const { rows, hasMore } = collect(cursor, query);
    return { messages: this.records(query.sessionId, rows), hasMore };
  }

  /** Rows as wire records, each with its `__openclaw` (its run's fields from the runs of that transcript). */
  private records(sessionId: string, rows: MessageRow[]): MessageRecord[] {
    if (rows.length === 0) return [];
    const window = first<{ started_at: number; ended_at: number | null }>(
      this.sql,
      "SELECT started_at, ended_at FROM transcripts WHERE session_id = ?",
      sessionId,
    );
    const meta = new Map<number, RunMeta>();
    if (window) {
      const seqs = rows.map((row) => row.seq);
      const runs = this.database.runs.forMessages(
        Math.min(...seqs),
        Math.max(...seqs),
        window.started_at,
        window.ended_at,
      );
      for (const run of runs) {
        if (run.userSeq !== null) meta.set(run.userSeq, { idempotencyKey: `${run.runId}:user` });
        if (run.replySeq !== null) meta.set(run.replySeq, { runId: run.runId });
      }
    }
    return rows.map((row) => withPosition(row, meta.get(row.seq)));
  }

  messageId(sessionId: string, seq: number): string {
    return (
      first<{ id: string }>(this.sql, "SELECT id FROM messages WHERE session_id = ? AND seq = ?", sessionId, seq)?.id ??
      ""
    );
  }

  findIdempotent(key: string): string | undefined {
    return first<{ response: string }>(this.sql, "SELECT response FROM idempotency WHERE key = ?", key)?.response;
  }

  /** Remembers an ingest's outcome; keys older than IDEMPOTENCY_TTL_MS are dropped as new ones arrive. */
  rememberIdempotent(key: string, response: string, at: number): void {
    this.sql.exec("INSERT OR REPLACE INTO idempotency (key, response, created_at) VALUES (?, ?, ?)", key, response, at);
    if (this.idempotencyWrites++ % IDEMPOTENCY_PRUNE_EVERY === 0) {
      this.sql.exec("DELETE FROM idempotency WHERE created_at < ?", at - IDEMPOTENCY_TTL_MS);
    }
  }

  sessionIds(): Array<{ sessionId: string; startedAt: number; endedAt: number | null }> {
    return all<{ session_id: string; started_at: number; ended_at: number | null }>(
      this.sql,
      "SELECT session_id, started_at, ended_at FROM transcripts ORDER BY started_at",
    ).map((r) => ({ sessionId: r.session_id, startedAt: r.started_at, endedAt: r.ended_at }));
  }

  /**
   * User and assistant messages of a transcript whose stored body contains `needle` (any case),
   * newest first: one scan of that transcript's rows, bounded by `limit` matches and by
   * `maxBytes` of bodies looked at (`stopped` when that budget ended the scan first).
   */
  searchMessages(
    sessionId: string,
    needle: string,
    limit: number,
    maxBytes: number,
  ): {
    rows: Array<{ seq: number; id: string; role: string; at: number; body: string }>;
    bytes: number;
    stopped: boolean;
  } {
    // Rows are stepped one at a time, so leaving the loop ends the scan.
    const cursor = this.sql.exec<{
      seq: number;
      id: string;
      role: string;
      created_at: number;
      size: number;
      body: string | null;
    }>(
      `SELECT seq, id, role, created_at, length(CAST(body AS BLOB)) AS size,
              CASE WHEN instr(lower(body), lower(?)) > 0 THEN body END AS body
       FROM messages WHERE session_id = ? AND role IN ('user', 'assistant') ORDER BY seq DESC`,
      needle,
      sessionId,
    );
    const rows: Array<{ seq: number; id: string; role: string; at: number; body: string }> = [];
    let bytes = 0;
    for (const r of cursor) {
      if (bytes >= maxBytes) return { rows, bytes, stopped: true };
      bytes += r.size;
      if (r.body === null) continue;
      rows.push({ seq: r.seq, id: r.id, role: r.role, at: r.created_at, body: r.body });
      if (rows.length === limit) break;
    }
    return { rows, bytes, stopped: false };
  }

  /** Seeds many messages in one transaction (benchmarks and tests). */
  bulkInsert(sessionId: string, rows: Array<{ record: Omit<MessageRecord, "json">; body: string }>): void {
    this.transaction(() => {
      for (const row of rows) this.insertMessage(sessionId, row.record, row.body);
    });
  }
}

/** Reads up to `limit` rows (one extra tells whether more exist) within the byte budget. */
function collect(cursor: SqlStorageCursor<MessageRow>, query: PageQuery): { rows: MessageRow[]; hasMore: boolean } {
  const rows: MessageRow[] = [];
  let bytes = 0;
  for (const row of cursor) {
    if (rows.length === query.limit || (rows.length > 0 && bytes + row.body.length > query.maxBytes)) {
      return { rows, hasMore: true };
    }
    bytes += row.body.length + POSITION_JSON_BYTES;
    rows.push(row);
  }
  return { rows, hasMore: false };
}

/** About what `__openclaw` adds to a message's JSON (the byte budget counts it). */
const POSITION_JSON_BYTES = 120;

/** What `__openclaw` says of a message's run: the reply's `runId`, the user message's `idempotencyKey`. */
type RunMeta = { runId?: string; idempotencyKey?: string };

/**
 * Appends OpenClaw's `__openclaw` (`id`, `seq`, `recordTimestampMs` when the record was
 * written, and its run's fields) to a stored message's JSON without re-parsing it.
 */
function withPosition(row: MessageRow, run: RunMeta | undefined): MessageRecord {
  const runFields =
    (run?.runId ? `"runId":${JSON.stringify(run.runId)},` : "") +
    (run?.idempotencyKey ? `"idempotencyKey":${JSON.stringify(run.idempotencyKey)},` : "");
  const json = `${row.body.slice(0, -1)},"__openclaw":{${runFields}"id":${JSON.stringify(row.id)},"recordTimestampMs":${row.created_at},"seq":${row.seq}}}`;
  const record: MessageRecord = { seq: row.seq, id: row.id, role: row.role, createdAt: row.created_at, json };
  if (run?.runId) record.runId = run.runId;
  return record;
}
