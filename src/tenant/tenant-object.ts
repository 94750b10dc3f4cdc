import { DurableObject } from "cloudflare:workers";
import type { HubInterest } from "../contracts/hub-api";
import type { PatchOptions, SessionRef } from "../contracts/session-api";
import type {
  ClaimIntent,
  ContinuedRun,
  IssuedToken,
  ListFilter,
  ListPage,
  SessionUpdate,
  TenantAccess,
  TenantApi,
  TokenInfo,
} from "../contracts/tenant-api";
import { installLedgerLogSink } from "../ledger/log-sink";
import type { SessionRow } from "../model/session-row";
import { PendingSessions } from "../pending/pending-sessions";
import { PendingSessionStore } from "../pending/pending-store";
import type { FlowStep } from "../policy/flow-steps";
import type { Meter } from "../policy/limit-rules";
import type { TenantConfig } from "../protocol/config";
import type { OperatorScope } from "../protocol/http";
import type { DeploymentKeyGrantChange, SecretWrite } from "../protocol/secrets";
import type { SessionPatch } from "../protocol/session";
import type { StreamTicketGrant } from "../protocol/stream-ticket";
import type { MethodTable } from "../registry/method";
import { TenantSecrets } from "../secrets/tenant-secrets";
import { ledgerApi } from "../stubs";
import { writeConfig } from "./config-write";
import { IndexStore } from "./index-store";
import { RunIndex } from "./run-index";
import { TenantRunsRole } from "./runs-role";
import { SessionDirectory } from "./session-directory";
import { endFollowsIn, TenantAccessControl } from "./tenant-access";
import { TenantDeletion } from "./tenant-deletion";
import { TenantGateway } from "./tenant-gateway";
import { TenantLimits } from "./tenant-limits";
import { openTenantDatabase, TenantStore } from "./tenant-store";
import { TokenStore } from "./token-store";

/**
 * One tenant: record, tokens, config, the session index and the gateway's WebSockets (gateway/hub.ts;
 * its method table handed in by src/index.ts). Wiring and RPC methods that delegate: access to
 * tenant-access.ts, the index to session-directory.ts, run ids and limits to its runs role
 * (runs-role.ts over run-index.ts and tenant-limits.ts); SQL lives in the stores.
 */
export class TenantObject extends DurableObject<Env> implements TenantApi {
  private readonly tenantStore: TenantStore;
  private readonly tokens: TokenStore;
  private readonly index: IndexStore;
  private readonly pending: PendingSessions;
  private readonly secrets: TenantSecrets;
  private readonly access: TenantAccessControl;
  private readonly directory: SessionDirectory;
  private readonly runs: TenantRunsRole;
  private readonly quota: TenantLimits;
  private readonly gateway: TenantGateway;
  private readonly deletion: TenantDeletion;

  constructor(ctx: DurableObjectState, env: Env, methods: MethodTable) {
    super(ctx, env);
    installLedgerLogSink(env);
    openTenantDatabase(ctx.storage);
    const tenantStore = new TenantStore(ctx.storage.sql);
    this.tenantStore = tenantStore;
    this.tokens = new TokenStore(ctx.storage.sql);
    this.index = new IndexStore(ctx.storage.sql);
    const pendingStore = new PendingSessionStore(ctx.storage.sql);
    const admitNew = () => this.quota.admitSession();
    this.pending = new PendingSessions(pendingStore, this.index, () => tenantStore.tenantId(), admitNew);
    this.secrets = new TenantSecrets(ctx.storage.sql, env, () => ctx.id.name);
    this.quota = new TenantLimits(
      env as unknown as Record<string, unknown>,
      tenantStore,
      () => tenantStore.config(),
      async (day) => ledgerApi(env, ctx.id.name ?? "").tokensOn(day),
      (promise) => ctx.waitUntil(promise),
      () => this.gateway.sockets(),
      () => this.index.sessions.sessionCount() + pendingStore.placeholders(),
      () => this.index.progress.messageBytesTotal(),
    );
    this.runs = new TenantRunsRole(new RunIndex(this.index.runs), this.quota);
    this.access = new TenantAccessControl({
      env,
      tenantStore,
      tokens: this.tokens,
      closeConnections: (tokenId) => this.gateway.closeToken(tokenId),
      endFollows: (follows) => endFollowsIn(env, tenantStore.tenantId(), follows),
    });
    this.gateway = new TenantGateway(
      {
        ctx,
        env,
        methods,
        config: () => tenantStore.config(),
        authenticate: (token) => this.access.authenticateBearer(token),
        tenant: this,
      },
      (sockets) => this.quota.admitSocket(sockets),
    );
    this.directory = new SessionDirectory({
      env,
      index: this.index,
      pending: this.pending,
      tenantStore,
      fanout: this.gateway.fanout,
      audience: (key) => this.gateway.audience(key),
    });
    const { heldRows } = this.directory;
    this.deletion = new TenantDeletion(ctx.storage, tenantStore, this.index, heldRows, this.access, this.gateway);
  }

  /** WebSocket upgrades for the tenant's gateway (the worker routes them here). */
  override async fetch(request: Request): Promise<Response> {
    // Every tenant object is named by its tenant id (stubs.ts), so the runtime tells it which.
    const tenantId = this.ctx.id.name;
    if (tenantId && tenantId === this.env.DEFAULT_TENANT) this.create(tenantId);
    return this.gateway.upgrade(request, tenantId && this.tenantStore.exists() ? tenantId : undefined);
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    await this.gateway.hub.receive(ws, message);
  }

  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    this.gateway.hub.closedByPeer(ws, code, reason);
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    this.gateway.hub.closed(ws);
  }

  override async alarm(): Promise<void> {
    await this.gateway.hub.alarm();
  }

  /** Updates from session objects: the index row, then what is new fanned out to subscribers. */
  publish(update: SessionUpdate): { hot: boolean; listening: boolean } {
    if (update.row) this.pending.adopted(update.key, update.sessionId);
    return this.directory.apply(update);
  }

  createSession(ref: SessionRef, patch: SessionPatch, options: PatchOptions = {}) {
    return this.directory.create(ref, patch, options);
  }

  claimPendingSession(key: string, intent: ClaimIntent | "start") {
    return intent === "start" ? this.pending.claimBeforeStart(key) : this.pending.claim(key, intent);
  }

  /** Makes the tenant's record (the default tenant's on first use, with no admin call). */
  create(tenantId: string): boolean {
    return this.tenantStore.create(tenantId, Date.now());
  }

  exists(): boolean {
    return this.tenantStore.exists();
  }

  openDefault(tenantId: string): TenantConfig {
    this.create(tenantId);
    return this.tenantStore.config();
  }

  issueToken(scopes: OperatorScope[], label?: string): Promise<IssuedToken | null> {
    return this.access.issueToken(scopes, label);
  }

  tokenExists(tokenId: string): boolean {
    return this.access.tokenExists(tokenId);
  }

  followWith(tokenId: string, key: string): boolean {
    return this.access.followWith(tokenId, key);
  }

  revokeToken(tokenId: string): Promise<boolean> {
    return this.access.revoke(tokenId);
  }

  authenticate(tokenId: string, hash: string): TenantAccess | null {
    return this.access.authenticate(tokenId, hash);
  }

  issueStreamTicket(hash: string, grant: StreamTicketGrant, expiresAt: number): boolean {
    return this.access.issueStreamTicket(hash, grant, expiresAt);
  }

  redeemStreamTicket(hash: string): { grant: StreamTicketGrant; config: TenantConfig } | null {
    return this.access.redeemStreamTicket(hash);
  }

  tokenList(limit: number, after?: { createdAt: number; tokenId: string }): TokenInfo[] | null {
    return this.tenantStore.exists() ? this.tokens.tokenPage(limit, after) : null;
  }

  info(): { createdAt: number; deletingAt?: number; sessions: number; tokens: number } | null {
    const record = this.tenantStore.record();
    if (!record) return null;
    const { tenantId: _id, ...rest } = record;
    return { ...rest, sessions: this.index.sessionIds.liveKeys(0).total, tokens: this.tokens.tokenCount() };
  }

  /** A step of deleting the tenant (src/tenant/tenant-deletion.ts): the next session keys to delete. */
  deletionStep(batch: number): Promise<{ deletingSince: number; keys: string[]; remaining: number } | null> {
    return this.deletion.step(batch);
  }

  /** The last step: drops everything the tenant object holds (config, index, secrets, run ids). */
  finishDeletion(): Promise<void> {
    return this.deletion.finish();
  }

  config(): TenantConfig {
    return this.tenantStore.config();
  }

  async putConfig(config: TenantConfig, baseHash?: string) {
    const told = (hash: string) => this.ctx.waitUntil(this.gateway.configChanged(hash));
    const written = await writeConfig(this.tenantStore, config, baseHash, Date.now(), told);
    if (written.ok) await this.access.retireGrants();
    return written;
  }

  /** A gateway hub object's connections changed (src/gateway-hub-object.ts). */
  hubInterest(hub: number, interest: HubInterest): void {
    this.gateway.report(hub, interest);
  }

  authenticateGateway(token: string) {
    return this.access.authenticateBearer(token);
  }

  runnerSecret(rotate = false): string {
    return this.tokens.secret("runner", Date.now(), rotate);
  }

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

  deploymentKeyGrants(change?: DeploymentKeyGrantChange) {
    return this.secrets.deploymentKeyGrants(change, Date.now());
  }

  upsertSession(row: SessionRow, version: number): boolean {
    return this.directory.upsert(row, version);
  }

  removeSession(key: string, at: number): boolean {
    return this.directory.remove(key, at);
  }

  session(key: string, withChildren = false): SessionRow | null {
    return this.directory.row(key, withChildren);
  }

  keyForSessionId(sessionId: string): { key: string; agentId: string } | null {
    return this.index.sessionIds.keyForSessionId(sessionId) ?? null;
  }

  listSessions(filter: ListFilter): SessionRow[] {
    return this.directory.list(filter);
  }

  listSessionsPage(filter: ListFilter & { limit: number }): ListPage {
    return this.directory.page(filter);
  }

  claimSessionId(sessionId: string, key: string, agentId: string): string | null {
    return this.index.sessionIds.claimSessionId(sessionId, key, agentId) ?? null;
  }

  sessionKeysAfter(afterKey: string, limit: number): string[] {
    return this.index.sessions.keysAfter(afterKey, limit);
  }

  keysWithLabel(label: string, agentId?: string): string[] {
    return this.index.sessions.keysWithLabel(label, agentId);
  }

  agentIds(): string[] {
    return this.index.sessions.agentIds();
  }

  countActiveChildren(key: string): number {
    return this.index.sessions.countActiveChildren(key);
  }

  rebuildIndex(): Promise<{ sessions: number }> {
    return this.directory.rebuild();
  }

  // The runs role (runs-role.ts): run ids, run admission, model slots, meters.
  recordRunStart(runId: string, key: string) {
    return this.runs.recordRunStart(runId, key);
  }

  recordFlowStep(runId: string, key: string, step: FlowStep) {
    return this.runs.recordFlowStep(runId, key, step);
  }

  recordAnnounceRun(runId: string, key: string) {
    return this.runs.recordAnnounceRun(runId, key);
  }

  admitCompletion(runId: string, key: string, continues?: ContinuedRun) {
    return this.runs.admitCompletion(runId, key, continues);
  }

  acquireModelSlot(runId: string) {
    return this.runs.acquireModelSlot(runId);
  }

  limits(override?: Record<string, unknown> | null) {
    return this.runs.limits(override);
  }

  transcriptLimits() {
    return this.runs.transcriptLimits();
  }

  runKey(runId: string) {
    return this.runs.runKey(runId);
  }

  waitForRunKey(runId: string, timeoutMs: number) {
    return this.runs.waitForRunKey(runId, timeoutMs);
  }

  recentRunIds(key: string) {
    return this.runs.recentRunIds(key);
  }

  admit(meter: Meter, want?: number) {
    return this.runs.admit(meter, want);
  }
}
