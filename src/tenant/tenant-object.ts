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
import type { SessionRow } from "../model/session-row";
import type { FlowStep } from "../policy/flow-steps";
import type { Meter } from "../policy/limit-rules";
import type { TenantConfig } from "../protocol/config";
import type { OperatorScope } from "../protocol/http";
import type { DeploymentKeyGrantChange, SecretWrite } from "../protocol/secrets";
import type { SessionPatch } from "../protocol/session";
import type { StreamTicketGrant } from "../protocol/stream-ticket";
import type { MethodTable } from "../registry/method";
import { writeConfig } from "./config-write";
import { type TenantParts, wireTenant } from "./tenant-parts";

/**
 * One tenant: record, tokens, config, the session index and the gateway's WebSockets (gateway/hub.ts;
 * its method table handed in by src/index.ts). Wiring and RPC methods that delegate: access to
 * tenant-access.ts, the index to session-directory.ts, run ids and limits to its runs role
 * (runs-role.ts over run-index.ts and tenant-limits.ts); SQL lives in the stores.
 */
export class TenantObject extends DurableObject<Env> implements TenantApi {
  /** The tenant's modules, assembled in tenant-parts.ts. */
  private readonly parts: TenantParts;

  constructor(ctx: DurableObjectState, env: Env, methods: MethodTable) {
    super(ctx, env);
    this.parts = wireTenant(ctx, env, methods, this);
  }

  /** WebSocket upgrades for the tenant's gateway (the worker routes them here). */
  override async fetch(request: Request): Promise<Response> {
    // Every tenant object is named by its tenant id (stubs.ts), so the runtime tells it which.
    const tenantId = this.ctx.id.name;
    if (tenantId && tenantId === this.env.DEFAULT_TENANT) this.create(tenantId);
    return this.parts.gateway.upgrade(request, tenantId && this.parts.tenantStore.exists() ? tenantId : undefined);
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    await this.parts.gateway.hub.receive(ws, message);
  }

  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    this.parts.gateway.hub.closedByPeer(ws, code, reason);
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    this.parts.gateway.hub.closed(ws);
  }

  override async alarm(): Promise<void> {
    await this.parts.gateway.hub.alarm();
  }

  /** Updates from session objects: the index row, then what is new fanned out to subscribers. */
  publish(update: SessionUpdate): { hot: boolean; listening: boolean } {
    if (update.row) this.parts.pending.adopted(update.key, update.sessionId);
    return this.parts.directory.apply(update);
  }

  createSession(ref: SessionRef, patch: SessionPatch, options: PatchOptions = {}) {
    return this.parts.directory.create(ref, patch, options);
  }

  claimPendingSession(key: string, intent: ClaimIntent | "start") {
    return intent === "start" ? this.parts.pending.claimBeforeStart(key) : this.parts.pending.claim(key, intent);
  }

  /** Makes the tenant's record (the default tenant's on first use, with no admin call). */
  create(tenantId: string): boolean {
    return this.parts.tenantStore.create(tenantId, Date.now());
  }

  exists(): boolean {
    return this.parts.tenantStore.exists();
  }

  openDefault(tenantId: string): TenantConfig {
    this.create(tenantId);
    return this.parts.tenantStore.config();
  }

  issueToken(scopes: OperatorScope[], label?: string): Promise<IssuedToken | null> {
    return this.parts.access.issueToken(scopes, label);
  }

  tokenExists(tokenId: string): boolean {
    return this.parts.access.tokenExists(tokenId);
  }

  followWith(tokenId: string, key: string): boolean {
    return this.parts.access.followWith(tokenId, key);
  }

  revokeToken(tokenId: string): Promise<boolean> {
    return this.parts.access.revoke(tokenId);
  }

  authenticate(tokenId: string, hash: string): TenantAccess | null {
    return this.parts.access.authenticate(tokenId, hash);
  }

  issueStreamTicket(hash: string, grant: StreamTicketGrant, expiresAt: number): boolean {
    return this.parts.access.issueStreamTicket(hash, grant, expiresAt);
  }

  redeemStreamTicket(hash: string): { grant: StreamTicketGrant; config: TenantConfig } | null {
    return this.parts.access.redeemStreamTicket(hash);
  }

  tokenList(limit: number, after?: { createdAt: number; tokenId: string }): TokenInfo[] | null {
    return this.parts.tenantStore.exists() ? this.parts.tokens.tokenPage(limit, after) : null;
  }

  info(): { createdAt: number; deletingAt?: number; sessions: number; tokens: number } | null {
    const record = this.parts.tenantStore.record();
    if (!record) return null;
    const { tenantId: _id, ...rest } = record;
    return { ...rest, sessions: this.parts.index.sessionIds.liveKeys(0).total, tokens: this.parts.tokens.tokenCount() };
  }

  /** A step of deleting the tenant (src/tenant/tenant-deletion.ts): the next session keys to delete. */
  deletionStep(batch: number): Promise<{ deletingSince: number; keys: string[]; remaining: number } | null> {
    return this.parts.deletion.step(batch);
  }

  /** The last step: drops everything the tenant object holds (config, index, secrets, run ids). */
  finishDeletion(): Promise<void> {
    return this.parts.deletion.finish();
  }

  config(): TenantConfig {
    return this.parts.tenantStore.config();
  }

  async putConfig(config: TenantConfig, baseHash?: string) {
    const told = (hash: string) => this.ctx.waitUntil(this.parts.gateway.configChanged(hash));
    const written = await writeConfig(this.parts.tenantStore, config, baseHash, Date.now(), told);
    if (written.ok) await this.parts.access.retireGrants();
    return written;
  }

  /** A gateway hub object's connections changed (src/gateway-hub-object.ts). */
  hubInterest(hub: number, interest: HubInterest): void {
    this.parts.gateway.report(hub, interest);
  }

  authenticateGateway(token: string) {
    return this.parts.access.authenticateBearer(token);
  }

  runnerSecret(rotate = false): string {
    return this.parts.tokens.secret("runner", Date.now(), rotate);
  }

  secretsList() {
    return this.parts.secrets.list();
  }

  secretsSet(write: SecretWrite) {
    return this.parts.secrets.set(write, Date.now());
  }

  secretsDelete(name: string) {
    return this.parts.secrets.delete(name);
  }

  resolveSecret(name: string) {
    return this.parts.secrets.resolve(name);
  }

  deploymentKeyGrants(change?: DeploymentKeyGrantChange) {
    return this.parts.secrets.deploymentKeyGrants(change, Date.now());
  }

  upsertSession(row: SessionRow, version: number): boolean {
    return this.parts.directory.upsert(row, version);
  }

  removeSession(key: string, at: number): boolean {
    return this.parts.directory.remove(key, at);
  }

  session(key: string, withChildren = false): SessionRow | null {
    return this.parts.directory.row(key, withChildren);
  }

  keyForSessionId(sessionId: string): { key: string; agentId: string } | null {
    return this.parts.index.sessionIds.keyForSessionId(sessionId) ?? null;
  }

  listSessions(filter: ListFilter): SessionRow[] {
    return this.parts.directory.list(filter);
  }

  listSessionsPage(filter: ListFilter & { limit: number }): ListPage {
    return this.parts.directory.page(filter);
  }

  claimSessionId(sessionId: string, key: string, agentId: string): string | null {
    return this.parts.index.sessionIds.claimSessionId(sessionId, key, agentId) ?? null;
  }

  sessionKeysAfter(afterKey: string, limit: number): string[] {
    return this.parts.index.sessions.keysAfter(afterKey, limit);
  }

  keysWithLabel(label: string, agentId?: string): string[] {
    return this.parts.index.sessions.keysWithLabel(label, agentId);
  }

  agentIds(): string[] {
    return this.parts.index.sessions.agentIds();
  }

  countActiveChildren(key: string): number {
    return this.parts.index.sessions.countActiveChildren(key);
  }

  rebuildIndex(): Promise<{ sessions: number }> {
    return this.parts.directory.rebuild();
  }

  // The runs role (runs-role.ts): run ids, run admission, model slots, meters.
  recordRunStart(runId: string, key: string) {
    return this.parts.runs.recordRunStart(runId, key);
  }

  recordFlowStep(runId: string, key: string, step: FlowStep) {
    return this.parts.runs.recordFlowStep(runId, key, step);
  }

  recordAnnounceRun(runId: string, key: string) {
    return this.parts.runs.recordAnnounceRun(runId, key);
  }

  admitCompletion(runId: string, key: string, continues?: ContinuedRun) {
    return this.parts.runs.admitCompletion(runId, key, continues);
  }

  acquireModelSlot(runId: string) {
    return this.parts.runs.acquireModelSlot(runId);
  }

  limits(override?: Record<string, unknown> | null) {
    return this.parts.runs.limits(override);
  }

  transcriptLimits() {
    return this.parts.runs.transcriptLimits();
  }

  runKey(runId: string) {
    return this.parts.runs.runKey(runId);
  }

  waitForRunKey(runId: string, timeoutMs: number) {
    return this.parts.runs.waitForRunKey(runId, timeoutMs);
  }

  recentRunIds(key: string) {
    return this.parts.runs.recentRunIds(key);
  }

  admit(meter: Meter, want?: number) {
    return this.parts.runs.admit(meter, want);
  }
}
