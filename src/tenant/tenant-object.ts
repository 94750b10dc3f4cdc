import { DurableObject } from "cloudflare:workers";
import { constantTimeEqual, mintToken } from "../auth/tokens";
import type { Env } from "../env";
import { classifySessionKind, isCronRunKey } from "../keys/session-key";
import type { TenantConfig } from "../protocol/config";
import type { OperatorScope } from "../protocol/http";
import type { SessionRow } from "../session/session-row";
import { type IndexColumns, type ListFilter, TenantStore } from "./tenant-store";

export type IssuedToken = { tokenId: string; token: string; scopes: OperatorScope[] };
export type TenantAccess = { scopes: OperatorScope[]; config: TenantConfig };

/**
 * One tenant: its record, token hashes, config and the session index (the registry).
 * Later layers add the tenant's gateway WebSockets here.
 */
export class TenantObject extends DurableObject<Env> {
  private readonly store: TenantStore;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.store = new TenantStore(ctx.storage);
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

  revokeToken(tokenId: string): boolean {
    return this.store.deleteToken(tokenId);
  }

  /** Checks a token (by id and SHA-256) and returns its scopes with the tenant config. */
  authenticate(tokenId: string, hash: string): TenantAccess | null {
    const token = this.store.token(tokenId);
    // Compare even when the id is unknown so timing does not reveal which ids exist.
    const matches = constantTimeEqual(token?.hash ?? "0".repeat(64), hash);
    if (!token || !matches) return null;
    return { scopes: token.scopes, config: this.store.config() };
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
    return this.store.upsertSession(row, version, this.indexColumns(row));
  }

  removeSession(key: string, _at: number): boolean {
    return this.store.removeSession(key);
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
    this.store.clearIndex();
    let indexed = 0;
    const queue = [...keys];
    const worker = async () => {
      for (let key = queue.shift(); key !== undefined; key = queue.shift()) {
        const snapshot = await this.env.SESSIONS.getByName(`${tenantId}/${key}`).indexSnapshot();
        if (snapshot && this.upsertSession(snapshot.row, snapshot.version)) indexed++;
      }
    };
    await Promise.all(Array.from({ length: Math.min(8, keys.length) }, worker));
    return { sessions: indexed };
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
      kind: classifySessionKind(row.key, { cfg, agentId: row.agentId, ...(row.chatType ? { chatType: row.chatType } : {}) }),
      isCronRun: isCronRunKey(row.key),
      searchText: [row.displayName, row.label, row.sessionId, row.key]
        .filter((part): part is string => typeof part === "string")
        .join("\n")
        .toLowerCase(),
    };
  }
}
