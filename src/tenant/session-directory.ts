import type { PatchOptions, SessionRef } from "../contracts/session-api";
import type { ListFilter, ListPage, SessionRefused, SessionUpdate } from "../contracts/tenant-api";
import type { Fanout } from "../gateway/fanout";
import { type IndexColumns, indexColumns, type SessionRow } from "../model/session-row";
import type { PendingSessions } from "../pending/pending-sessions";
import type { SessionEntry, SessionPatch } from "../protocol/session";
import { sessionApi } from "../stubs";
import { HeldIndexRows } from "./held-index-rows";
import type { IndexStore } from "./index-store";
import { ListCursors, type ListPosition } from "./list-cursors";
import type { TenantStore } from "./tenant-store";

/** Rows a page's totalCount may look at past the page; beyond, totalCount is left out. */
export const LIST_TOTAL_COUNT_ROWS = 2_000;

/** Session objects asked at once while the index is rebuilt. */
const REINDEX_CONCURRENCY = 8;

export type SessionDirectoryDeps = {
  env: Env;
  index: IndexStore;
  pending: PendingSessions;
  tenantStore: TenantStore;
  fanout: Pick<Fanout, "deliver" | "deleted">;
  /** Who would receive a session's updates: its messages (hot), its run events (listening). */
  audience(key: string): { hot: boolean; listening: boolean };
};

/**
 * The tenant's session index as the rest of the service sees it: updates from session objects
 * (the row, then the new messages and events fanned out), lists with spawn-tree children,
 * removal, and a rebuild from the session objects themselves. Index columns derive from the
 * tenant's session config.
 */
export class SessionDirectory {
  /** Where served pages ended, so the next offset continues by position (ListCursors). */
  private readonly cursors = new ListCursors();
  /** Handed-off rows, held in front of the index (held-index-rows.ts); a deletion discards them. */
  readonly heldRows: HeldIndexRows;

  constructor(private readonly deps: SessionDirectoryDeps) {
    this.heldRows = new HeldIndexRows(deps.index);
  }

  /** An update of a session object; answers who would receive its next one. */
  apply(update: SessionUpdate): { hot: boolean; listening: boolean } {
    const { index, fanout } = this.deps;
    const audience = this.deps.audience(update.key);
    // A late update of a deleted session is dropped whole: no index row, no events.
    if (this.storeRow(update) === "deleted") return audience;
    // A handed-off row is held to keep SQLite off the inject's answer; its bytes are counted when
    // the session's retry alarm sends the same update again, acknowledged (a second or two later).
    // A handed-off message was never sent before (the session hands over only a fresh one).
    const messages = update.handedOff
      ? update.messages
      : index.progress.recordProgress(update.key, update.sessionId, update.messageBytes, update.messages);
    fanout.deliver({ ...update, messages }, () => update.row ?? index.sessions.session(update.key) ?? null);
    return audience;
  }

  /** A handed-off row waits in memory (its caller answers sooner); others are written now. */
  private storeRow(update: SessionUpdate): "stored" | "stale" | "deleted" | "held" | "unchanged" {
    const { index } = this.deps;
    const { heldRows } = this;
    if (!update.row) return index.sessionIds.isDeleted(update.sessionId) ? "deleted" : "unchanged";
    const columns = this.columns(update.row);
    return update.handedOff
      ? heldRows.hold(update.row, update.version, columns)
      : index.upsertSession(update.row, update.version, columns);
  }

  /** A pending session (indexed before its object exists); null when the key is taken. */
  create(ref: SessionRef, patch: SessionPatch, options: PatchOptions): SessionEntry | SessionRefused | null {
    const created = this.deps.pending.create(ref, patch, options, Date.now());
    if (!created || "refused" in created) return created;
    this.apply(created.update);
    return created.entry;
  }

  upsert(row: SessionRow, version: number): boolean {
    return this.deps.index.upsertSession(row, version, this.columns(row)) === "stored";
  }

  remove(key: string, at: number): boolean {
    const row = this.deps.index.sessions.session(key);
    this.deps.pending.remove(key);
    const removed = this.deps.index.removeSession(key);
    // Nothing deleted, nothing to tell.
    if (removed) this.deps.fanout.deleted({ key, sessionId: row?.sessionId, agentId: row?.agentId }, at);
    return removed;
  }

  /** A session's index row; `withChildren` adds `childSessions` as a list row has them. */
  row(key: string, withChildren: boolean): SessionRow | null {
    const row = this.deps.index.sessions.session(key);
    if (!row) return null;
    const kids = withChildren ? this.deps.index.sessions.childrenOf([key]).get(key) : undefined;
    return kids ? { ...row, childSessions: kids } : row;
  }

  /** The first rows, newest first, each with `childSessions` (its spawn-tree children). */
  list(filter: ListFilter): SessionRow[] {
    return this.withChildren(this.deps.index.listing.list({ ...filter, now: Date.now() }));
  }

  /**
   * One page at `filter.offset`: continued from where the page that answered this offset
   * ended (by position, O(page)), else sought from the top. `total` is exact when the page is
   * the last one or the rest can be counted within LIST_TOTAL_COUNT_ROWS, else undefined.
   */
  page(filter: ListFilter & { limit: number }): ListPage {
    const { index } = this.deps;
    const now = Date.now();
    const offset = Math.max(0, Math.floor(filter.offset ?? 0));
    const after = offset > 0 ? this.cursors.get(filter, offset) : undefined;
    const found = index.listing.listPage({ ...filter, now }, after ? { after } : { skip: offset }, filter.limit);
    if (found.more && found.last) this.cursors.set(filter, offset + found.rows.length, found.last);
    const total = found.scanLimited
      ? undefined
      : !found.more && (found.rows.length > 0 || offset === 0)
        ? offset + found.rows.length
        : this.restCount(filter, now, found.more ? found.last : undefined, offset + found.rows.length);
    return {
      rows: this.withChildren(found.rows),
      hasMore: found.more,
      ...(total !== undefined ? { total } : {}),
      ...(found.scanLimited ? { scanLimited: true } : {}),
    };
  }

  /** `before` rows plus those after `after` (all of them when `after` is undefined: a page past the end). */
  private restCount(filter: ListFilter, now: number, after: ListPosition | undefined, before: number) {
    const rest = this.deps.index.listing.countFrom({ ...filter, now }, after, LIST_TOTAL_COUNT_ROWS);
    if (rest === undefined) return undefined;
    return after ? before + rest : rest;
  }

  private withChildren(rows: SessionRow[]): SessionRow[] {
    const children = this.deps.index.sessions.childrenOf(rows.map((r) => r.key));
    return rows.map((row) => {
      const kids = children.get(row.key);
      return kids ? { ...row, childSessions: kids } : row;
    });
  }

  /**
   * Rebuilds the derived index from the session objects: every key the tenant ever created
   * (and did not delete) is asked for its current row; rows nobody claims are dropped.
   */
  async rebuild(): Promise<{ sessions: number }> {
    const { index, pending, env } = this.deps;
    const tenantId = this.deps.tenantStore.tenantId();
    if (!tenantId) return { sessions: 0 };
    const keys = index.sessionIds.allKeys();
    // Rows are replaced one by one while lists keep answering.
    const live = new Set<string>();
    const queue = [...keys];
    const worker = async () => {
      for (let key = queue.shift(); key !== undefined; key = queue.shift()) {
        const snapshot = pending.unclaimedSnapshot(key) ?? (await sessionApi(env, tenantId, key).indexSnapshot());
        if (!snapshot) continue;
        // The ordering check keeps a newer row that arrived while this one was read.
        index.upsertSession(snapshot.row, snapshot.version, this.columns(snapshot.row));
        live.add(key);
      }
    };
    await Promise.all(Array.from({ length: Math.min(REINDEX_CONCURRENCY, keys.length) }, worker));
    index.sessions.dropSessions(keys.filter((key) => !live.has(key)));
    return { sessions: live.size };
  }

  private columns(row: SessionRow): IndexColumns {
    return indexColumns(row, this.deps.tenantStore.config().session);
  }
}
