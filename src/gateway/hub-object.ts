import { DurableObject } from "cloudflare:workers";
import type { HubApi, HubDelivery } from "../contracts/hub-api";
import type { TenantApi } from "../contracts/tenant-api";
import { installLedgerLogSink } from "../ledger/log-sink";
import type { TenantConfig } from "../protocol/config";
import { parseHubObjectName, tenantApi } from "../stubs";
import { GatewayHub } from "./hub";
import { summarize } from "./hub-routing";
import { InterestReporter } from "./interest-reporter";

/**
 * One hub of a large tenant's gateway: WebSockets the tenant object assigned here once it
 * held as many as it may (src/gateway/hub-routing.ts). The same GatewayHub as in the tenant
 * object, whose tenant port is now the tenant object's stub; events come from the tenant
 * object in order (`deliver`), and the hub reports what its connections would receive.
 */
export class GatewayHubObject extends DurableObject<Env> implements HubApi {
  private readonly hub: GatewayHub;
  private readonly tenant: TenantApi;
  private readonly tenantId: string;
  private readonly reporter: InterestReporter;
  private reportedSinceWake = false;
  /** The tenant's config, read once per wake-up and again after `configChanged`. */
  private tenantConfig: TenantConfig | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    installLedgerLogSink(env);
    const { tenantId, hub } = parseHubObjectName(ctx.id.name);
    this.tenantId = tenantId;
    this.tenant = tenantApi(env, tenantId);
    this.reporter = new InterestReporter(
      () => summarize(this.hub.connections.all()),
      async (interest) => void (await this.tenant.hubInterest(hub, interest)),
    );
    this.hub = new GatewayHub({
      ctx,
      env,
      config: () => this.tenantConfig ?? {},
      authenticate: async (token) => this.tenant.authenticateGateway(token),
      tenant: this.tenant,
      connectionsChanged: () => this.reporter.changed(),
      settled: () => this.reporter.settled(),
    });
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair("ping", "pong"));
  }

  override async fetch(request: Request): Promise<Response> {
    await this.loadConfig();
    return this.hub.upgrade(request, this.tenantId);
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    await this.loadConfig();
    await this.hub.receive(ws, message);
  }

  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    this.hub.closedByPeer(ws, code, reason);
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    this.hub.closed(ws);
  }

  override async alarm(): Promise<void> {
    await this.hub.alarm();
  }

  deliver(deliveries: HubDelivery[]): void {
    // Once per wake-up the tenant object hears what the sockets kept here add up to (a report
    // lost to a crash, or sockets gone without a close event, would otherwise stay as it was).
    if (!this.reportedSinceWake) {
      this.reportedSinceWake = true;
      this.reporter.changed();
    }
    for (const delivery of deliveries) {
      if (delivery.kind === "update") this.hub.fanout.deliver(delivery.update, () => delivery.row);
      else this.hub.fanout.deleted(delivery.session, delivery.at);
    }
  }

  configChanged(): void {
    this.tenantConfig = null;
  }

  closeToken(tokenId: string): void {
    this.hub.closeToken(tokenId);
  }

  closeAll(code: number, reason: string): void {
    this.hub.closeAll(code, reason);
  }

  private async loadConfig(): Promise<void> {
    this.tenantConfig ??= await this.tenant.config();
  }
}
