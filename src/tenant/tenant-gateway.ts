import { HUB_HEADER } from "../contracts/headers";
import type { HubInterest } from "../contracts/hub-api";
import type { SessionUpdate, TenantApi } from "../contracts/tenant-api";
import { GatewayHub, type HubHost } from "../gateway/hub";
import { HubRelay } from "../gateway/hub-relay";
import { hubCapacity, TENANT_HUB } from "../gateway/hub-routing";
import {
  clientAddress,
  PREAUTH_RETRY_AFTER_SECONDS,
  type PreauthLimits,
  preauthAdmission,
  preauthLimits,
  preauthTenantRefusal,
} from "../gateway/preauth";

import type { SessionRow } from "../model/session-row";
import type { Refusal } from "../policy/limit-rules";
import { errorBody } from "../protocol/http";
import { hubApi } from "../stubs";
import { HubStore } from "./hub-store";
import { inProcessTenantPorts } from "./in-process-ports";

/**
 * A tenant's gateway as its tenant object runs it: the sockets the object holds itself (hub 0,
 * every socket of a small tenant) and, past GATEWAY_HUB_SOCKETS, the hub objects new sockets
 * are assigned to. Events go to the object's own connections and to each hub that has a
 * connection that would receive them.
 */
export class TenantGateway {
  readonly hub: GatewayHub;
  private readonly relay: HubRelay;
  private readonly tenantId: string;

  private readonly preauthLimits: PreauthLimits;

  constructor(
    /**
     * The tenant object itself is the hub's tenant and its in-process ports' (tenant/in-process-ports.ts);
     * `methods`, the gateway's method table, is handed to the object where the worker exports it (src/index.ts).
     */
    host: Omit<HubHost, "ports" | "tenant"> & { tenant: TenantApi },
    /** Refuses a new socket of a tenant that has `sockets` already (its limit), else null. */
    private readonly socketRefusal: (sockets: number) => Refusal | null,
  ) {
    this.preauthLimits = preauthLimits(host.env);
    // Every tenant object is named by its tenant id (stubs.ts).
    this.tenantId = host.ctx.id.name ?? "";
    this.hub = new GatewayHub({
      ...host,
      ports: (tenantId, origin) => inProcessTenantPorts(host.env, host.tenant, tenantId, origin),
    });
    this.relay = new HubRelay(
      new HubStore(host.ctx.storage.sql),
      (index) => hubApi(host.env, this.tenantId, index),
      hubCapacity(host.env.GATEWAY_HUB_SOCKETS),
    );
  }

  /**
   * An upgrade: refused (429) past its address's bound on unauthenticated sockets; at the
   * tenant's bound another waiting socket is evicted first (here, else in the hub with the
   * most). Then accepted here or answered with the hub object it goes to (the worker forwards
   * it). The bounds are checked first, so a refused socket never makes a hub.
   */
  async upgrade(request: Request, tenantId: string | undefined): Promise<Response> {
    if (tenantId && request.headers.get("upgrade")?.toLowerCase() === "websocket") {
      const address = clientAddress(request.headers, this.preauthLimits.trustedProxyHops);
      const here = this.hub.connections.handshaking(address);
      const there = this.relay.handshaking(address);
      const open = { tenant: here.all + there.all, address: here.address + there.address };
      const admission = preauthAdmission(open, this.preauthLimits);
      // A client (a CLI, a server) retries after the handshake deadline has freed places.
      const retryAfterMs = PREAUTH_RETRY_AFTER_SECONDS * 1000;
      if (typeof admission === "object") return refusedResponse({ message: admission.refusal, retryAfterMs });
      if (admission === "evict" && !(await this.evictHandshaking())) {
        return refusedResponse({ message: preauthTenantRefusal(this.preauthLimits), retryAfterMs });
      }
      const refused = this.socketRefusal(this.sockets());
      if (refused) return refusedResponse(refused);
      const hub = this.relay.assign(this.hub.connections.size);
      if (hub !== TENANT_HUB) return new Response(null, { status: 204, headers: { [HUB_HEADER]: String(hub) } });
    }
    return this.hub.upgrade(request, tenantId);
  }

  /** One socket in its handshake closes for a newcomer: one held here, else one in a hub. */
  private async evictHandshaking(): Promise<boolean> {
    if (this.hub.evictHandshaking()) return true;
    return this.relay.evictHandshaking().catch((error) => {
      console.error("gateway: a hub could not evict a waiting socket", error);
      return false;
    });
  }

  /** The tenant's gateway sockets: here and in its hub objects. */
  sockets(): number {
    return this.hub.connections.size + this.relay.sockets();
  }

  /** A hub object's connections changed. */
  report(hub: number, interest: HubInterest): void {
    this.relay.report(hub, interest);
  }

  hasSubscribers(key: string): boolean {
    return this.hub.connections.hasSubscribers(key) || this.relay.hasSubscribers(key);
  }

  /** Who would receive a session's updates: its messages (hot), its run events (every reader). */
  audience(key: string): { hot: boolean; listening: boolean } {
    const hot = this.hasSubscribers(key);
    return { hot, listening: hot || this.hub.connections.hasReaders() || this.relay.hasReaders() };
  }

  /** What the session directory fans out: here, then to the hubs that want it. */
  readonly fanout = {
    deliver: (update: Pick<SessionUpdate, "key" | "messages" | "events" | "reasons">, row: () => SessionRow | null) => {
      this.hub.fanout.deliver(update, row);
      this.relay.update(update, row);
    },
    deleted: (session: { key: string; sessionId?: string; agentId?: string }, at: number) => {
      this.hub.fanout.deleted(session, at);
      this.relay.deleted(session, at);
    },
  };

  /**
   * The config changed (now `hash`): every hub reads it again (one that cannot be told keeps it
   * until its next wake-up), connections from origins no longer allowed close, and every reader
   * hears OpenClaw's `config.changed`, which the Control UI answers by reloading its config and
   * agent roster.
   */
  configChanged(hash: string): Promise<void> {
    this.hub.closeDisallowedOrigins();
    const eventJson = JSON.stringify({ path: `tenant:${this.tenantId}`, hash, ts: Date.now() });
    this.hub.connections.broadcast("config.changed", eventJson);
    return this.relay
      .each((hub) => Promise.resolve(hub.configChanged(eventJson)))
      .catch((error) => console.error("gateway: a hub missed a config change", error));
  }

  /**
   * A token was revoked: its connections close here and in every hub. A hub that cannot be told
   * closes them at its next tick, when it checks its connections' tokens.
   */
  closeToken(tokenId: string): Promise<void> {
    this.hub.closeToken(tokenId);
    return this.relay
      .each((hub) => Promise.resolve(hub.closeToken(tokenId)))
      .catch((error) => console.error("gateway: a hub missed a revocation", error));
  }

  /** Closes every connection, here and in every hub; rejects when a hub could not be told (the step is retried). */
  closeAll(code: number, reason: string): Promise<void> {
    this.hub.closeAll(code, reason);
    return this.relay.each((hub) => Promise.resolve(hub.closeAll(code, reason)));
  }

  /** The tenant is gone: no hub is remembered. */
  forget(): void {
    this.relay.forget();
  }
}

/** A refused upgrade: 429 before any socket exists, as every HTTP refusal over a limit. */
function refusedResponse(refusal: Pick<Refusal, "message" | "retryAfterMs">): Response {
  return Response.json(errorBody("rate_limited", refusal.message), {
    status: 429,
    headers: { "Retry-After": String(Math.ceil(refusal.retryAfterMs / 1000)) },
  });
}
