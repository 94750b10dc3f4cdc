import { DurableObject } from "cloudflare:workers";
import { isDevOperatorToken } from "../auth/authenticate";
import { constantTimeEqual, mintToken, parseTokenId, sha256Hex } from "../auth/tokens";
import type { PatchOptions, SessionRef } from "../contracts/session-api";
import type {
  ClaimIntent,
  IssuedToken,
  ListFilter,
  SessionUpdate,
  TenantAccess,
  TenantApi,
  TokenInfo,
} from "../contracts/tenant-api";
import { GatewayHub } from "../gateway/hub";
import { type IndexColumns, indexColumns, type SessionRow } from "../model/session-row";
import { type ClaimedEntry, PendingSessions } from "../pending/pending-sessions";
import { PendingSessionStore } from "../pending/pending-store";
import type { TenantConfig } from "../protocol/config";
import { errorResponse, OPERATOR_SCOPES, type OperatorScope } from "../protocol/http";
import type { SecretWrite } from "../protocol/secrets";
import type { SessionEntry, SessionPatch } from "../protocol/session";
import type { StreamTicketGrant } from "../protocol/stream-ticket";
import { TenantSecrets } from "../secrets/tenant-secrets";
import { sessionApi } from "../stubs";
import { Waiters } from "../util/waiters";
import { IndexStore } from "./index-store";
import { RateLimiter } from "./rate-limit";
import { RecentRuns } from "./recent-runs";
import { openTenantDatabase, TenantStore } from "./tenant-store";
import { TokenStore } from "./token-store";

/** Session objects asked at once while the index is rebuilt. */
const REINDEX_CONCURRENCY = 8;
/** A token's last use is written at most this often (admin lists show it to the minute). */
export const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * One tenant: its record, tokens and config, the session index (the registry), and the
 * tenant's gateway WebSockets (src/gateway/hub.ts). Wiring and RPC methods; SQL lives in the
 * stores, the gateway protocol and event rendering in src/gateway/.
 */
export class TenantObject extends DurableObject<Env> implements TenantApi {
  private readonly tenantStore: TenantStore;
  private readonly tokens: TokenStore;
  private readonly index: IndexStore;
  private readonly pending: PendingSessions;
  private readonly secrets: TenantSecrets;
  private readonly limiter = new RateLimiter();
  /** Callers waiting for a run id to be recorded (agent.wait may come before its `agent` request). */
  private readonly runKeyWaiters = new Waiters<string, boolean>();
  private readonly recentRuns = new RecentRuns();
  /** When each token's last use was written (in memory: a restart writes the next use at once). */
  private readonly touchedAt = new Map<string, number>();
  private readonly hub: GatewayHub;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    openTenantDatabase(ctx.storage);
    this.tenantStore = new TenantStore(ctx.storage.sql);
    this.tokens = new TokenStore(ctx.storage.sql);
    this.index = new IndexStore(ctx.storage.sql);
    this.pending = new PendingSessions(new PendingSessionStore(ctx.storage.sql), this.index, () =>
      this.tenantStore.tenantId(),
    );
    this.secrets = new TenantSecrets(ctx.storage.sql, env, () => ctx.id.name);
    this.hub = new GatewayHub({
      ctx,
      env,
      config: () => this.tenantStore.config(),
      authenticate: (token) => this.authenticateToken(token),
      tenant: this,
    });
    // Keep-alive pings are answered by the runtime without waking the object.
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair("ping", "pong"));
  }

  // ── Gateway WebSockets ──────────────────────────────────────────────────

  /** WebSocket upgrades for the tenant's gateway (the worker routes them here). */
  override async fetch(request: Request): Promise<Response> {
    // Every tenant object is named by its tenant id (stubs.ts), so the runtime tells it which.
    const tenantId = this.ctx.id.name;
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") {
      return new Response("expected a WebSocket upgrade", { status: 426 });
    }
    if (tenantId === this.env.DEFAULT_TENANT) this.ensure(tenantId);
    else if (!tenantId || !this.tenantStore.exists()) {
      return errorResponse(404, "not_found", "No such gateway");
    }
    return this.hub.accept(tenantId, new URL(request.url).origin);
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    try {
      await this.hub.message(ws, message);
    } catch (error) {
      // Never throw out of a handler: one bad frame must not hurt other connections.
      console.error("TenantObject: webSocketMessage failed", error);
    }
  }

  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    this.hub.closed(ws);
    try {
      ws.close(code === 1005 || code === 1006 ? 1000 : code, reason);
    } catch {
      // Already closed.
    }
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    this.hub.closed(ws);
  }

  override async alarm(): Promise<void> {
    await this.hub.alarm();
  }

  /**
   * Updates from session objects: the index row when the entry changed, then what is new
   * fanned out to subscribers. Answers whether anyone follows the session live (the session
   * object batches when nobody does).
   */
  publish(update: SessionUpdate): { hot: boolean } {
    if (update.row) this.pending.adopted(update.key, update.sessionId);
    return this.applyUpdate(update);
  }

  private applyUpdate(update: SessionUpdate): { hot: boolean } {
    const hot = this.hub.connections.hasSubscribers(update.key);
    // A late update of a deleted session is dropped whole: no index row, no events.
    const state = update.row
      ? this.index.upsertSession(update.row, update.version, this.indexColumns(update.row))
      : this.index.isDeleted(update.sessionId)
        ? "deleted"
        : "unchanged";
    if (state === "deleted") return { hot };
    const messages = this.index.claimUndelivered(update.key, update.sessionId, update.messages);
    this.hub.fanout.deliver({ ...update, messages }, () => update.row ?? this.index.session(update.key) ?? null);
    return { hot };
  }

  createSession(ref: SessionRef, patch: SessionPatch, options: PatchOptions = {}): SessionEntry | null {
    const created = this.pending.create(ref, patch, options, Date.now());
    if (!created) return null;
    this.applyUpdate(created.update);
    return created.entry;
  }

  claimPendingSession(key: string, intent: ClaimIntent): ClaimedEntry | null {
    return this.pending.claim(key, intent);
  }

  // ── Tenant and tokens ───────────────────────────────────────────────────

  /** Creates the tenant; false when it already exists. */
  create(tenantId: string): boolean {
    if (this.tenantStore.exists()) return false;
    this.tenantStore.create(tenantId, Date.now());
    return true;
  }

  /** Makes sure the tenant record exists (the deployment's default tenant needs no admin call). */
  ensure(tenantId: string): void {
    if (!this.tenantStore.exists()) this.tenantStore.create(tenantId, Date.now());
  }

  exists(): boolean {
    return this.tenantStore.exists();
  }

  /** The default tenant exists implicitly: created on first use, returns its config. */
  openDefault(tenantId: string): TenantConfig {
    this.ensure(tenantId);
    return this.tenantStore.config();
  }

  async issueToken(scopes: OperatorScope[], label?: string): Promise<IssuedToken | null> {
    if (!this.tenantStore.exists()) return null;
    const minted = await mintToken();
    this.tokens.insertToken(minted.tokenId, minted.hash, scopes, label, Date.now());
    return { tokenId: minted.tokenId, token: minted.token, scopes };
  }

  tokenExists(tokenId: string): boolean {
    return this.tokens.token(tokenId) !== undefined;
  }

  /**
   * An SSE follower of `key` opened with `tokenId`, or is still open (its keepalive): recorded so
   * that revoking the token ends it. False when the token is gone: the follower must close.
   */
  followWith(tokenId: string, key: string): boolean {
    if (this.tenantStore.record()?.deletingAt !== undefined) return false;
    return this.tokens.recordFollow(tokenId, key, Date.now());
  }

  /**
   * Revokes a token: its gateway connections and SSE follows are closed before this answers
   * (a follow whose session could not be reached closes at its next keepalive check).
   */
  async revokeToken(tokenId: string): Promise<boolean> {
    const revoked = this.tokens.deleteToken(tokenId);
    this.touchedAt.delete(tokenId);
    if (revoked) this.hub.closeToken(tokenId);
    await this.endFollows(this.tokens.takeFollows(tokenId));
    return revoked;
  }

  /** Checks a token (by id and SHA-256) and returns its scopes with the tenant config. */
  authenticate(tokenId: string, hash: string): TenantAccess | null {
    const token = this.tokens.token(tokenId);
    // Compare even when the id is unknown so timing does not reveal which ids exist.
    const matches = constantTimeEqual(token?.hash ?? "0".repeat(64), hash);
    if (!token || !matches) return null;
    this.touchToken(tokenId);
    return { scopes: token.scopes, config: this.tenantStore.config() };
  }

  /** Records a token's use, at most once per LAST_USED_RESOLUTION_MS per token. */
  private touchToken(tokenId: string, now = Date.now()): void {
    if (now - (this.touchedAt.get(tokenId) ?? 0) < LAST_USED_RESOLUTION_MS) return;
    this.touchedAt.set(tokenId, now);
    this.tokens.touchToken(tokenId, now);
  }

  // ── Stream tickets (EventSource) ────────────────────────────────────────

  /** Stores a stream ticket's grant under its hash; false when the tenant does not exist. */
  issueStreamTicket(hash: string, grant: StreamTicketGrant, expiresAt: number): boolean {
    if (!this.tenantStore.exists()) return false;
    this.tokens.insertTicket(hash, JSON.stringify(grant), expiresAt, Date.now());
    return true;
  }

  /**
   * Redeems a ticket once: its grant with the tenant config, or null (unknown, used or expired).
   * A grant from a token revoked since is refused.
   */
  redeemStreamTicket(hash: string): { grant: StreamTicketGrant; config: TenantConfig } | null {
    const json = this.tokens.takeTicket(hash, Date.now());
    if (!json) return null;
    const grant = JSON.parse(json) as StreamTicketGrant;
    if (grant.tokenId && !this.tokens.token(grant.tokenId)) return null;
    return { grant, config: this.tenantStore.config() };
  }

  // ── Admin: tokens, deletion ─────────────────────────────────────────────

  /** The tenant's tokens, newest first (never their hashes); null when the tenant does not exist. */
  tokenList(limit: number, after?: { createdAt: number; tokenId: string }): TokenInfo[] | null {
    return this.tenantStore.exists() ? this.tokens.tokenPage(limit, after) : null;
  }

  /** The tenant record with counts; null when it does not exist. */
  info(): { createdAt: number; deletingAt?: number; sessions: number; tokens: number } | null {
    const record = this.tenantStore.record();
    if (!record) return null;
    const { tenantId: _id, ...rest } = record;
    return { ...rest, sessions: this.index.liveKeys(0).total, tokens: this.tokens.tokenCount() };
  }

  /**
   * A step of deleting the tenant: the first call marks it, revokes every token and closes its
   * gateway sockets; each call answers the next `batch` of session keys still to delete (the
   * caller deletes them in their own objects) and how many remain. Null: no such tenant.
   */
  async deletionStep(batch: number): Promise<{ deletingSince: number; keys: string[]; remaining: number } | null> {
    if (!this.tenantStore.exists()) return null;
    const deletingSince = this.tenantStore.markDeleting(Date.now());
    for (const tokenId of this.tokens.deleteAllTokens()) this.hub.closeToken(tokenId);
    this.touchedAt.clear();
    this.hub.closeAll(1008, "tenant deleted");
    await this.endFollows(this.tokens.takeFollows());
    const { keys, total } = this.index.liveKeys(batch);
    return { deletingSince, keys, remaining: total };
  }

  /** The last step: drops everything the tenant object holds (config, index, secrets, run ids). */
  async finishDeletion(): Promise<void> {
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    this.touchedAt.clear();
    this.tokens.forget();
    this.tenantStore.forget();
    openTenantDatabase(this.ctx.storage);
  }

  /** Ends SSE follows in their session objects, each tried twice. */
  private async endFollows(follows: { tokenId: string; sessionKey: string }[]): Promise<void> {
    const tenantId = this.tenantStore.tenantId();
    if (!tenantId || follows.length === 0) return;
    const end = async (follow: { tokenId: string; sessionKey: string }) =>
      sessionApi(this.env, tenantId, follow.sessionKey).endFollows(follow.tokenId);
    await Promise.all(
      follows.map((follow) =>
        end(follow)
          .catch(() => end(follow))
          .catch(() => 0),
      ),
    );
  }

  private async authenticateToken(
    token: string,
  ): Promise<{ scopes: readonly OperatorScope[]; tokenId?: string } | null> {
    const tenantId = this.tenantStore.tenantId();
    if (!tenantId) return null;
    if (isDevOperatorToken(this.env, tenantId, token)) return { scopes: OPERATOR_SCOPES };
    const tokenId = parseTokenId(token);
    if (!tokenId) return null;
    const access = this.authenticate(tokenId, await sha256Hex(token));
    return access && { scopes: access.scopes, tokenId };
  }

  // ── Config, secrets, runs, limits ───────────────────────────────────────

  config(): TenantConfig {
    return this.tenantStore.config();
  }

  /** Replaces the config (already validated by the caller) in one write. */
  putConfig(config: TenantConfig): TenantConfig {
    this.tenantStore.saveConfig(config, Date.now());
    return config;
  }

  /** The secret webhook run requests are signed with (HMAC-SHA256 of the body). */
  runnerSecret(rotate = false): string {
    return this.tokens.secret("runner", Date.now(), rotate);
  }

  /** Which session a run belongs to (agent.wait and callbacks only carry the runId). */
  recordRun(runId: string, key: string, abortable = false): string {
    const now = Date.now();
    const owner = this.index.recordRun(runId, key, now);
    if (abortable && owner === key) this.recentRuns.recorded(key, runId, now);
    this.runKeyWaiters.wake(runId, true);
    return owner;
  }

  /** Run ids recorded for `key` a moment ago (their start may not have reached the session yet). */
  recentRunIds(key: string): string[] {
    return this.recentRuns.of(key, Date.now());
  }

  runKey(runId: string): string | null {
    return this.index.runKey(runId) ?? null;
  }

  /** The run's session, waiting up to `timeoutMs` for the run id to be recorded; null when it is not. */
  async waitForRunKey(runId: string, timeoutMs: number): Promise<string | null> {
    const key = this.runKey(runId);
    if (key || timeoutMs <= 0) return key;
    await this.runKeyWaiters.wait(runId, timeoutMs, () => false);
    return this.runKey(runId);
  }

  /** 0 when admitted, else the milliseconds until the meter's one-minute window resets. */
  admit(meter: string, perMinute: number): number {
    return this.limiter.admit(meter, perMinute);
  }

  // ── Session index ───────────────────────────────────────────────────────

  upsertSession(row: SessionRow, version: number): boolean {
    return this.index.upsertSession(row, version, this.indexColumns(row)) === "stored";
  }

  removeSession(key: string, at: number): boolean {
    const row = this.index.session(key);
    this.pending.remove(key);
    const removed = this.index.removeSession(key);
    // Nothing deleted, nothing to tell.
    if (removed) this.hub.fanout.deleted({ key, sessionId: row?.sessionId, agentId: row?.agentId }, at);
    return removed;
  }

  /** A session's index row; `withChildren` adds `childSessions` as a list row has them. */
  session(key: string, withChildren = false): SessionRow | null {
    const row = this.index.session(key);
    if (!row) return null;
    const kids = withChildren ? this.index.childrenOf([key]).get(key) : undefined;
    return kids ? { ...row, childSessions: kids } : row;
  }

  keyForSessionId(sessionId: string): { key: string; agentId: string } | null {
    return this.index.keyForSessionId(sessionId) ?? null;
  }

  /** Rows newest first, each with `childSessions` (its spawn-tree children). */
  listSessions(filter: ListFilter): SessionRow[] {
    const rows = this.index.list({ ...filter, now: Date.now() });
    const children = this.index.childrenOf(rows.map((r) => r.key));
    return rows.map((row) => {
      const kids = children.get(row.key);
      return kids ? { ...row, childSessions: kids } : row;
    });
  }

  /** One page of rows (as listSessions) and how many match the filter in all. */
  listSessionsPage(filter: ListFilter): { rows: SessionRow[]; total: number } {
    return { rows: this.listSessions(filter), total: this.index.count({ ...filter, now: Date.now() }) };
  }

  /** An import's transcript id: null when it may be used for `key`, else the key holding it. */
  claimSessionId(sessionId: string, key: string, agentId: string): string | null {
    return this.index.claimSessionId(sessionId, key, agentId) ?? null;
  }

  /** Every indexed key (archived, cron runs, global included), a page at a time in key order. */
  sessionKeysAfter(afterKey: string, limit: number): string[] {
    return this.index.keysAfter(afterKey, limit);
  }

  /** Keys carrying a label (optionally of one agent), newest first. */
  // ── Secret store ────────────────────────────────────────────────────────

  secretsList() {
    return this.secrets.list();
  }

  secretsSet(write: SecretWrite) {
    return this.secrets.set(write, Date.now());
  }

  secretsDelete(name: string) {
    return this.secrets.delete(name);
  }

  resolveSecret(name: string) {
    return this.secrets.resolve(name);
  }

  keysWithLabel(label: string, agentId?: string): string[] {
    return this.index.keysWithLabel(label, agentId);
  }

  agentIds(): string[] {
    return this.index.agentIds();
  }

  countActiveChildren(key: string): number {
    return this.index.countActiveChildren(key);
  }

  /**
   * Rebuilds the derived index from the session objects themselves: every key the tenant
   * ever created (and did not delete) is asked for its current row.
   */
  async rebuildIndex(): Promise<{ sessions: number }> {
    const tenantId = this.tenantStore.tenantId();
    if (!tenantId) return { sessions: 0 };
    const keys = this.index.allKeys();
    // Rows are replaced one by one while lists keep answering; rows of keys no session
    // object claims any more are dropped at the end.
    const live = new Set<string>();
    const queue = [...keys];
    const worker = async () => {
      for (let key = queue.shift(); key !== undefined; key = queue.shift()) {
        const snapshot =
          this.pending.unclaimedSnapshot(key) ?? (await sessionApi(this.env, tenantId, key).indexSnapshot());
        if (!snapshot) continue;
        // The ordering check keeps a newer row that arrived while this one was read.
        this.index.upsertSession(snapshot.row, snapshot.version, this.indexColumns(snapshot.row));
        live.add(key);
      }
    };
    await Promise.all(Array.from({ length: Math.min(REINDEX_CONCURRENCY, keys.length) }, worker));
    this.index.dropSessions(keys.filter((key) => !live.has(key)));
    return { sessions: live.size };
  }

  private indexColumns(row: SessionRow): IndexColumns {
    return indexColumns(row, this.tenantStore.config().session);
  }
}
