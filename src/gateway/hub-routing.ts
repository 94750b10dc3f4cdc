import type { HubDelivery, HubInterest } from "../contracts/hub-api";
import { positiveVar } from "../util/deployment-var";

/**
 * Pure decisions of the hub split: what a hub's connections add up to, which hubs an event
 * must reach, and which hub a new socket goes to.
 */

/** The hub index of the tenant object itself (it holds sockets until it is full). */
export const TENANT_HUB = 0;

/**
 * Sockets one object holds before new ones go to the next hub (wrangler var GATEWAY_HUB_SOCKETS):
 * chosen from a measured sweep (docs/benchmarks.md, "Hub threshold").
 */
export const DEFAULT_HUB_SOCKETS = 500;

export function hubCapacity(configured: string | undefined): number {
  return Math.max(1, Math.floor(positiveVar(configured, DEFAULT_HUB_SOCKETS)));
}

/** Whether a hub with this interest has a connection that would receive the delivery. */
export function wants(interest: HubInterest, keys: ReadonlySet<string>, delivery: HubDelivery): boolean {
  if (delivery.kind === "deleted") return interest.watchers > 0;
  const { update } = delivery;
  // Run events (chat, agent, tool) go to every reader; messages and changes to watchers and followers.
  if (update.events.length > 0 && interest.readers > 0) return true;
  return interest.watchers > 0 || keys.has(update.key);
}

/**
 * The hub a new socket goes to: here while the tenant object has room, else the first hub
 * with room (counting sockets assigned since its last report), else a new one.
 */
export function assignHub(
  here: number,
  capacity: number,
  hubs: ReadonlyMap<number, { sockets: number; assigned: number }>,
): number {
  if (here < capacity) return TENANT_HUB;
  for (let hub = 1; ; hub++) {
    const load = hubs.get(hub);
    if (!load || load.sockets + load.assigned < capacity) return hub;
  }
}
