import type { SessionRow } from "../model/session-row";
import type { Awaitable } from "./session-api";
import type { SessionUpdate } from "./session-update";

/**
 * The RPC surface of a gateway hub object: one of the objects a large tenant's gateway
 * WebSockets are spread over once its tenant object holds as many as it may (docs/gateway.md,
 * "Hubs"). The tenant object keeps the index and forwards each event to the hubs whose
 * connections would receive it; each hub renders it for its own connections, with their seqs.
 */

/** What a hub's connections would receive: summed up for the tenant object's routing. */
export type HubInterest = {
  /** Open sockets, in the handshake or ready (for the assignment of new ones). */
  sockets: number;
  /** Ready connections allowed to read: run events (`chat`, `agent`) go to all of them. */
  readers: number;
  /** `sessions.subscribe` connections: every visible session's messages and changes. */
  watchers: number;
  /** Keys some connection follows with `sessions.messages.subscribe`. */
  keys: string[];
  /**
   * Sockets still in their handshake, by client address ("" unknown): the tenant object bounds
   * them per tenant and per address. Absent in reports stored by an older release.
   */
  handshaking?: Record<string, number>;
};

/** One thing to render, in the order the tenant object saw it. */
export type HubDelivery =
  | { kind: "update"; update: Pick<SessionUpdate, "key" | "messages" | "events" | "reasons">; row: SessionRow | null }
  | { kind: "deleted"; session: { key: string; sessionId?: string; agentId?: string }; at: number };

/** Deliveries in order, numbered per tenant-object instance (`epoch`) so a retried batch is rendered once. */
export type HubBatch = { epoch: string; seq: number; deliveries: HubDelivery[] };

export interface HubApi {
  /** A WebSocket upgrade the tenant object assigned to this hub. */
  fetch(request: Request): Promise<Response>;
  /** Events for this hub's connections, in order (the tenant object sends one batch at a time). */
  deliver(batch: HubBatch): Awaitable<void>;
  /**
   * The tenant's config changed: the next request reads it again, and the hub's readers hear
   * OpenClaw's `config.changed` event (`eventJson`, its payload rendered once by the tenant).
   */
  configChanged(eventJson?: string): Awaitable<void>;
  /** Closes the connections authenticated with a revoked token. */
  closeToken(tokenId: string): Awaitable<void>;
  /** Closes every connection (the tenant is being deleted). */
  closeAll(code: number, reason: string): Awaitable<void>;
  /** The tenant's unauthenticated budget is full: closes one socket in its handshake here (false: none). */
  evictHandshaking(): Awaitable<boolean>;
}
