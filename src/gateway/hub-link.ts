import type { HubBatch } from "../contracts/hub-api";
import type { TenantAccessApi, TenantConfigApi } from "../contracts/tenant-api";
import type { TenantConfig } from "../protocol/config";
import type { GatewayHub } from "./hub";
import type { InterestReporter } from "./interest-reporter";

/**
 * A hub object's side of its link to the tenant object: the tenant's config (read once per
 * wake-up and again after a change), batches rendered once each, a report of its sockets once
 * per wake-up, and the check of its connections' tokens at each tick.
 */
export class HubLink {
  /** Null only before the first read; after a change the old one serves until the new one is read. */
  private config: TenantConfig | null = null;
  private stale = true;
  /** Bumped by every change: a read that started before it is not taken as current. */
  private configVersion = 0;
  private lastBatch: { epoch: string; seq: number } | null = null;
  private reportedSinceWake = false;

  constructor(
    private readonly tenant: TenantAccessApi & TenantConfigApi,
    private readonly hub: () => GatewayHub,
    private readonly reporter: InterestReporter,
  ) {}

  /** The config a request is served with (read before any frame is handled). */
  currentConfig(): TenantConfig {
    if (!this.config) throw new Error("gateway hub: the tenant's config is not loaded");
    return this.config;
  }

  async loadConfig(): Promise<void> {
    while (this.stale) {
      const version = this.configVersion;
      const config = await this.tenant.config();
      this.config = config;
      if (version === this.configVersion) this.stale = false;
    }
  }

  configChanged(): void {
    this.configVersion += 1;
    this.stale = true;
  }

  /** A batch from the tenant object, in its order; a retried one already rendered is dropped. */
  deliver(batch: HubBatch): void {
    // The tenant object hears once per wake-up what the sockets kept here add up to (a report
    // lost to a crash, or sockets gone without a close event, would otherwise stay as it was).
    if (!this.reportedSinceWake) {
      this.reportedSinceWake = true;
      this.reporter.changed();
    }
    const last = this.lastBatch;
    if (last && last.epoch === batch.epoch && batch.seq <= last.seq) return;
    this.lastBatch = { epoch: batch.epoch, seq: batch.seq };
    const { fanout } = this.hub();
    for (const delivery of batch.deliveries) {
      if (delivery.kind === "update") fanout.deliver(delivery.update, () => delivery.row);
      else fanout.deleted(delivery.session, delivery.at);
    }
  }

  /** At each tick: connections whose token is gone close (a revocation this hub was not told of). */
  async closeRevoked(): Promise<void> {
    const hub = this.hub();
    const tokenIds = new Set<string>();
    for (const { state } of hub.connections.all()) if (state.tokenId) tokenIds.add(state.tokenId);
    for (const tokenId of tokenIds) {
      if (!(await this.tenant.tokenExists(tokenId))) hub.closeToken(tokenId);
    }
  }
}
