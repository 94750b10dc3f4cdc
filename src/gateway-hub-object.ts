import { DurableObject } from "cloudflare:workers";
import type { HubApi, HubBatch } from "./contracts/hub-api";
import type { TenantApi } from "./contracts/tenant-api";
import { GatewayHub } from "./gateway/hub";
import { HubLink } from "./gateway/hub-link";
import { InterestReporter } from "./gateway/interest-reporter";
import { installLedgerLogSink } from "./ledger/log-sink";
import { logInfo } from "./observability/log";
import type { MethodTable } from "./registry/method";
import { parseHubObjectName, tenantApi, tenantPorts } from "./stubs";

/**
 * One hub of a large tenant's gateway: WebSockets the tenant object assigned here once it
 * held as many as it may (src/gateway/hub-routing.ts). The same GatewayHub as in the tenant
 * object, whose tenant port is now the tenant object's stub; events come from the tenant
 * object in order (`deliver`), and the hub reports what its connections would receive.
 * Beside src/index.ts rather than in gateway/: it is a Durable Object class, handed the slices'
 * method table where the worker exports it (gateway/ imports no feature).
 */
export class GatewayHubObject extends DurableObject<Env> implements HubApi {
  private readonly hub: GatewayHub;
  private readonly tenant: TenantApi;
  private readonly tenantId: string;
  private readonly reporter: InterestReporter;
  private readonly link: HubLink;

  /** `methods`: the gateway's method table (src/slices.ts), handed in where the worker exports the class (src/index.ts). */
  constructor(ctx: DurableObjectState, env: Env, methods: MethodTable) {
    super(ctx, env);
    installLedgerLogSink(env);
    const { tenantId, hub } = parseHubObjectName(ctx.id.name);
    // Each start of an instance (first use, or a wake-up after hibernation or eviction), for the
    // operator only (no tenant field): the gateway's uptime spans wake-ups, so it cannot say.
    logInfo("gateway.hub_started", { tenantId, hub });
    this.tenantId = tenantId;
    this.tenant = tenantApi(env, tenantId);
    this.reporter = new InterestReporter(
      () => this.hub.connections.interest(),
      async (interest) => void (await this.tenant.hubInterest(hub, interest)),
    );
    this.hub = new GatewayHub({
      ctx,
      env,
      config: () => this.link.currentConfig(),
      authenticate: async (token) => this.tenant.authenticateGateway(token),
      methods,
      tenant: this.tenant,
      ports: (tenantId, origin) => tenantPorts(env, tenantId, origin),
      connectionsChanged: () => this.reporter.changed(),
      settled: () => this.reporter.settled(),
    });
    this.link = new HubLink(this.tenant, () => this.hub, this.reporter);
  }

  override async fetch(request: Request): Promise<Response> {
    await this.link.loadConfig();
    return this.hub.upgrade(request, this.tenantId);
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    try {
      await this.link.loadConfig();
    } catch (error) {
      // No request is answered without the tenant's config: the client reconnects.
      console.error("gateway hub: the tenant's config could not be read", error);
      return this.hub.close(ws, 1011, "tenant unavailable");
    }
    await this.hub.receive(ws, message);
  }

  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    this.hub.closedByPeer(ws, code, reason);
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    this.hub.closed(ws);
  }

  override async alarm(): Promise<void> {
    await this.link.closeRevoked().catch((error) => console.error("gateway hub: checking tokens failed", error));
    await this.hub.alarm();
  }

  deliver(batch: HubBatch): void {
    this.link.deliver(batch);
  }

  async configChanged(eventJson?: string): Promise<void> {
    this.link.configChanged();
    if (eventJson) this.hub.connections.broadcast("config.changed", eventJson);
    await this.link.loadConfig();
    this.hub.closeDisallowedOrigins();
  }

  closeToken(tokenId: string): void {
    this.hub.closeToken(tokenId);
  }

  closeAll(code: number, reason: string): void {
    this.hub.closeAll(code, reason);
  }

  evictHandshaking(): boolean {
    return this.hub.evictHandshaking();
  }
}
