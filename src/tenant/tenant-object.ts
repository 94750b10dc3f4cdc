import { DurableObject } from "cloudflare:workers";
import { isDevOperatorToken } from "../auth/authenticate";
import { constantTimeEqual, mintToken, parseTokenId, sha256Hex } from "../auth/tokens";
import { presentRow } from "../domain/registry";
import type { Env } from "../env";
import { GatewayHub } from "../gateway/hub";
import { classifySessionKind, isCronRunKey } from "../keys/session-key";
import type { TenantConfig } from "../protocol/config";
import { OPERATOR_SCOPES, type OperatorScope } from "../protocol/http";
import type { LiveEvent, SessionUpdate } from "../session/publisher";
import type { SessionRow } from "../session/session-row";
import { type IndexColumns, type ListFilter, TenantStore } from "./tenant-store";

/** Header the worker uses to tell the tenant object which tenant a WebSocket upgrade is for. */
export const TENANT_HEADER = "x-openclaw-tenant";

export type IssuedToken = { tokenId: string; token: string; scopes: OperatorScope[] };
export type TenantAccess = { scopes: OperatorScope[]; config: TenantConfig };

/**
 * One tenant: its record, token hashes, config and the session index (the registry).
 * It also hosts the tenant's gateway WebSockets (src/gateway/hub.ts).
 */
export class TenantObject extends DurableObject<Env> {
  private readonly store: TenantStore;
  private readonly hub: GatewayHub;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.store = new TenantStore(ctx.storage);
    this.hub = new GatewayHub({
      ctx,
      env,
      config: () => this.store.config(),
      authenticate: (token) => this.authenticateToken(token),
      nextBroadcastSeq: () => this.store.nextCounter("broadcast"),
      // Awaiting a plain value works like awaiting the stub's promise.
      self: this as unknown as DurableObjectStub<TenantObject>,
    });
    // Keep-alive pings are answered by the runtime without waking the object.
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair("ping", "pong"));
  }

  // ── Gateway WebSockets ──────────────────────────────────────────────────

  /** WebSocket upgrades for the tenant's gateway (the worker routes them here). */
  override async fetch(request: Request): Promise<Response> {
    const tenantId = request.headers.get(TENANT_HEADER);
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket" || !tenantId) {
      return new Response("expected a WebSocket upgrade", { status: 426 });
    }
    if (tenantId === this.env.DEFAULT_TENANT) this.ensure(tenantId);
    else if (!this.store.exists())
      return Response.json({ ok: false, error: { type: "not_found", message: "No such gateway" } }, { status: 404 });
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
    await this.hub.tick();
  }

  /**
   * Updates from session objects: index the row, then fan out what is new to subscribers.
   * Answers whether anyone follows the session live (the session batches when nobody does).
   */
  publish(update: SessionUpdate): { hot: boolean } {
    const hot = this.hub.hasSubscribers(update.row.key);
    // A late update of a deleted session is dropped whole: no index row, no events.
    if (this.store.upsertSession(update.row, update.version, this.indexColumns(update.row)) !== "deleted")
      this.fanOut(update);
    return { hot };
  }

  private fanOut(update: SessionUpdate): void {
    const key = update.row.key;
    const fresh = this.store.claimUndelivered(key, update.sessionId, update.messages);
    // The row is serialized once, and only when someone receives it (appends nobody follows skip it).
    let rowJson: string | undefined;
    const rowFields = () => (rowJson ??= JSON.stringify(presentRow(update.row, true)).slice(1, -1));
    const ts = Date.now();
    const events = [...update.events];
    // Live events are interleaved with messages by transcript position.
    const flushEvents = (upToSeq: number) => {
      while (events.length > 0 && events[0]!.afterSeq <= upToSeq) this.emitLiveEvent(key, events.shift()!, rowFields);
    };
    for (const message of fresh) {
      flushEvents(message.seq - 1);
      if (!this.hub.hasSubscribers(key)) continue;
      const head = `"sessionKey":${JSON.stringify(key)},"messageId":${JSON.stringify(message.id)},"messageSeq":${message.seq}`;
      this.hub.toMessageSubscribers(key, "session.message", `{${head},"message":${message.json},${rowFields()}}`);
      this.hub.toSessionWatchers("sessions.changed", `{${head},"ts":${ts},"phase":"message",${rowFields()}}`);
    }
    flushEvents(Number.MAX_SAFE_INTEGER);
    if (!this.hub.hasSubscribers(key)) return;
    for (const reason of update.reasons) {
      this.hub.toSessionWatchers(
        "sessions.changed",
        `{"sessionKey":${JSON.stringify(key)},"ts":${ts},"reason":"${reason}",${rowFields()}}`,
      );
    }
  }

  /** chat/agent events go to every connection that may read; lifecycle phases to session watchers. */
  private emitLiveEvent(key: string, event: LiveEvent, rowFields: () => string): void {
    if (event.event === "sessions.changed") {
      if (!this.hub.hasSubscribers(key)) return;
      this.hub.toSessionWatchers(
        "sessions.changed",
        `{${JSON.stringify({ sessionKey: key, ts: Date.now(), ...event.payload }).slice(1, -1)},${rowFields()}}`,
      );
    } else {
      const runId = typeof event.payload.runId === "string" ? event.payload.runId : undefined;
      this.hub.broadcast(event.event, { ...event.payload, sessionKey: key }, runId);
    }
  }

  private async authenticateToken(
    token: string,
  ): Promise<{ scopes: readonly OperatorScope[]; tokenId?: string } | null> {
    const tenantId = this.store.tenantId();
    if (!tenantId) return null;
    if (isDevOperatorToken(this.env, tenantId, token)) return { scopes: OPERATOR_SCOPES };
    const tokenId = parseTokenId(token);
    if (!tokenId) return null;
    const access = this.authenticate(tokenId, await sha256Hex(token));
    return access && { scopes: access.scopes, tokenId };
  }

  // ── Tenant and tokens ───────────────────────────────────────────────────

  /** Creates the tenant; false when it already exists. */
  create(tenantId: string): boolean {
    if (this.store.exists()) return false;
    this.store.create(tenantId, Date.now());
    return true;
  }

  /** Makes sure the tenant record exists (the deployment's default tenant needs no admin call). */
  ensure(tenantId: string): void {
    if (!this.store.exists()) this.store.create(tenantId, Date.now());
  }

  exists(): boolean {
    return this.store.exists();
  }

  /** The default tenant exists implicitly: created on first use, returns its config. */
  openDefault(tenantId: string): TenantConfig {
    this.ensure(tenantId);
    return this.store.config();
  }

  async issueToken(scopes: OperatorScope[], label?: string): Promise<IssuedToken | null> {
    if (!this.store.exists()) return null;
    const minted = await mintToken();
    this.store.insertToken(minted.tokenId, minted.hash, scopes, label, Date.now());
    return { tokenId: minted.tokenId, token: minted.token, scopes };
  }

  tokenExists(tokenId: string): boolean {
    return this.store.token(tokenId) !== undefined;
  }

  /** Revokes a token; gateway connections authenticated with it are closed at once. */
  revokeToken(tokenId: string): boolean {
    const revoked = this.store.deleteToken(tokenId);
    if (revoked) this.hub.closeToken(tokenId);
    return revoked;
  }

  /** Checks a token (by id and SHA-256) and returns its scopes with the tenant config. */
  authenticate(tokenId: string, hash: string): TenantAccess | null {
    const token = this.store.token(tokenId);
    // Compare even when the id is unknown so timing does not reveal which ids exist.
    const matches = constantTimeEqual(token?.hash ?? "0".repeat(64), hash);
    if (!token || !matches) return null;
    return { scopes: token.scopes, config: this.store.config() };
  }

  // ── Runs ────────────────────────────────────────────────────────────────

  /** The secret webhook run requests are signed with (HMAC-SHA256 of the body). */
  runnerSecret(rotate = false): string {
    return this.store.secret("runner", Date.now(), rotate);
  }

  /** Which session a run belongs to (agent.wait and callbacks only carry the runId). */
  recordRun(runId: string, key: string): string {
    return this.store.recordRun(runId, key, Date.now());
  }

  runKey(runId: string): string | null {
    return this.store.runKey(runId) ?? null;
  }

  // ── Config ──────────────────────────────────────────────────────────────

  config(): TenantConfig {
    return this.store.config();
  }

  /** Replaces the config (already validated by the caller) in one write. */
  putConfig(config: TenantConfig): TenantConfig {
    this.store.saveConfig(config, Date.now());
    return config;
  }

  // ── Session index ───────────────────────────────────────────────────────

  upsertSession(row: SessionRow, version: number): boolean {
    return this.store.upsertSession(row, version, this.indexColumns(row)) === "stored";
  }

  removeSession(key: string, at: number): boolean {
    const removed = this.store.removeSession(key);
    this.hub.toSessionWatchers("sessions.changed", JSON.stringify({ sessionKey: key, ts: at, reason: "delete" }));
    return removed;
  }

  session(key: string): SessionRow | null {
    return this.store.session(key) ?? null;
  }

  keyForSessionId(sessionId: string): { key: string; agentId: string } | null {
    return this.store.keyForSessionId(sessionId) ?? null;
  }

  /** Rows newest first, each with `childSessions` (its spawn-tree children). */
  listSessions(filter: Omit<ListFilter, "now">): SessionRow[] {
    const rows = this.store.list({ ...filter, now: Date.now() });
    const children = this.store.childrenOf(rows.map((r) => r.key));
    return rows.map((row) => {
      const kids = children.get(row.key);
      return kids ? { ...row, childSessions: kids } : row;
    });
  }

  /** An import's transcript id: null when it may be used for `key`, else the key holding it. */
  claimSessionId(sessionId: string, key: string, agentId: string): string | null {
    return this.store.claimSessionId(sessionId, key, agentId) ?? null;
  }

  /** Every indexed key (archived, cron runs, global included), a page at a time in key order. */
  sessionKeysAfter(afterKey: string, limit: number): string[] {
    return this.store.keysAfter(afterKey, limit);
  }

  /** Keys carrying a label (optionally of one agent), newest first. */
  keysWithLabel(label: string, agentId?: string): string[] {
    return this.store.keysWithLabel(label, agentId);
  }

  agentIds(): string[] {
    return this.store.agentIds();
  }

  countActiveChildren(key: string): number {
    return this.store.countActiveChildren(key);
  }

  /**
   * Rebuilds the derived index from the session objects themselves: every key the tenant
   * ever created (and did not delete) is asked for its current row.
   */
  async rebuildIndex(): Promise<{ sessions: number }> {
    const tenantId = this.store.tenantId();
    if (!tenantId) return { sessions: 0 };
    const keys = this.store.allKeys();
    // Rows are replaced one by one while lists keep answering; rows of keys no session
    // object claims any more are dropped at the end.
    const live = new Set<string>();
    const queue = [...keys];
    const worker = async () => {
      for (let key = queue.shift(); key !== undefined; key = queue.shift()) {
        const snapshot = await this.env.SESSIONS.getByName(`${tenantId}/${key}`).indexSnapshot();
        if (!snapshot) continue;
        // The ordering check keeps a newer row that arrived while this one was read.
        this.store.upsertSession(snapshot.row, snapshot.version, this.indexColumns(snapshot.row));
        live.add(key);
      }
    };
    await Promise.all(Array.from({ length: Math.min(8, keys.length) }, worker));
    this.store.dropSessions(keys.filter((key) => !live.has(key)));
    return { sessions: live.size };
  }

  // ── Rate limits ─────────────────────────────────────────────────────────

  private windows = new Map<string, { startedAt: number; count: number }>();

  /**
   * Fixed one-minute window per meter, in memory (best effort: a restarted object starts
   * a fresh window). Returns 0 when admitted, else the milliseconds until the window resets.
   */
  admit(meter: string, perMinute: number): number {
    const now = Date.now();
    const window = this.windows.get(meter);
    if (!window || now - window.startedAt >= 60_000) {
      this.windows.set(meter, { startedAt: now, count: 1 });
      return 0;
    }
    if (window.count >= perMinute) return window.startedAt + 60_000 - now;
    window.count++;
    return 0;
  }

  private indexColumns(row: SessionRow): IndexColumns {
    const cfg = this.store.config().session;
    return {
      kind: classifySessionKind(row.key, {
        cfg,
        agentId: row.agentId,
        ...(row.chatType ? { chatType: row.chatType } : {}),
      }),
      isCronRun: isCronRunKey(row.key),
      searchText: [row.displayName, row.label, row.sessionId, row.key]
        .filter((part): part is string => typeof part === "string")
        .join("\n")
        .toLowerCase(),
    };
  }
}
