import type { HubApi, HubDelivery, HubInterest } from "../contracts/hub-api";
import type { SessionUpdate } from "../contracts/tenant-api";
import type { SessionRow } from "../model/session-row";
import { logWarning } from "../observability/log";
import { assignHub, TENANT_HUB, wants } from "./hub-routing";
import type { HubStore } from "./hub-store";

type Hub = { interest: HubInterest; keys: Set<string>; assigned: number };

/**
 * The tenant object's side of the hub split: what each hub object reported, which hubs an
 * event must reach, and one ordered stream of batches per hub (a batch in flight at a time,
 * what comes meanwhile goes in the next), so each hub renders events in the tenant's order.
 */
export class HubRelay {
  private hubs: Map<number, Hub> | null = null;
  private readonly queues = new Map<number, { pending: HubDelivery[]; sending: boolean }>();

  constructor(
    private readonly store: HubStore,
    private readonly hubApi: (hub: number) => HubApi,
    private readonly capacity: number,
  ) {}

  /** Where a new socket goes, given the sockets the tenant object holds itself. */
  assign(here: number): number {
    const hubs = this.loaded();
    const loads = new Map([...hubs].map(([n, hub]) => [n, { sockets: hub.interest.sockets, assigned: hub.assigned }]));
    const chosen = assignHub(here, this.capacity, loads);
    if (chosen !== TENANT_HUB) {
      const hub = hubs.get(chosen) ?? this.remember(chosen, { sockets: 0, readers: 0, watchers: 0, keys: [] });
      hub.assigned += 1;
    }
    return chosen;
  }

  /** A hub's report of its connections (sent whenever they change, one at a time). */
  report(hubIndex: number, interest: HubInterest): void {
    this.store.put(hubIndex, interest, Date.now());
    this.remember(hubIndex, interest).assigned = 0;
  }

  hasSubscribers(key: string): boolean {
    for (const hub of this.loaded().values()) if (hub.interest.watchers > 0 || hub.keys.has(key)) return true;
    return false;
  }

  update(update: Pick<SessionUpdate, "key" | "messages" | "events" | "reasons">, row: () => SessionRow | null): void {
    if (this.loaded().size === 0) return;
    const delivery: HubDelivery = { kind: "update", update, row: null };
    let rendered = false;
    for (const [index, hub] of this.loaded()) {
      if (!wants(hub.interest, hub.keys, delivery)) continue;
      if (!rendered) {
        delivery.row = row();
        rendered = true;
      }
      this.enqueue(index, delivery);
    }
  }

  deleted(session: { key: string; sessionId?: string; agentId?: string }, at: number): void {
    const delivery: HubDelivery = { kind: "deleted", session, at };
    for (const [index, hub] of this.loaded())
      if (wants(hub.interest, hub.keys, delivery)) this.enqueue(index, delivery);
  }

  /** Tells every hub with sockets (config changes, revocations, the tenant's deletion). */
  each(tell: (hub: HubApi) => Promise<unknown>): Promise<void> {
    const told = [...this.loaded().keys()].map((index) =>
      tell(this.hubApi(index)).catch((error: unknown) =>
        logWarning("gateway.hub_unreachable", { hub: index, error: String(error) }),
      ),
    );
    return Promise.all(told).then(() => undefined);
  }

  /** The tenant's storage was wiped: nothing is remembered. */
  forget(): void {
    this.hubs = null;
    this.queues.clear();
  }

  private enqueue(index: number, delivery: HubDelivery): void {
    const queue = this.queues.get(index) ?? { pending: [], sending: false };
    this.queues.set(index, queue);
    queue.pending.push(delivery);
    if (!queue.sending) void this.drain(index, queue);
  }

  private async drain(index: number, queue: { pending: HubDelivery[]; sending: boolean }): Promise<void> {
    queue.sending = true;
    try {
      while (queue.pending.length > 0) {
        const batch = queue.pending;
        queue.pending = [];
        try {
          await this.hubApi(index).deliver(batch);
        } catch (error) {
          // Events are not stored for sockets (as with a socket that closes); the next batch goes on.
          logWarning("gateway.hub_delivery_failed", { hub: index, events: batch.length, error: String(error) });
        }
      }
    } finally {
      queue.sending = false;
    }
  }

  private remember(index: number, interest: HubInterest): Hub {
    const hubs = this.loaded();
    const hub = hubs.get(index) ?? { interest, keys: new Set<string>(), assigned: 0 };
    hub.interest = interest;
    hub.keys = new Set(interest.keys);
    if (interest.sockets === 0 && hub.assigned === 0) hubs.delete(index);
    else hubs.set(index, hub);
    return hub;
  }

  private loaded(): Map<number, Hub> {
    if (this.hubs) return this.hubs;
    this.hubs = new Map();
    for (const [index, interest] of this.store.load()) {
      this.hubs.set(index, { interest, keys: new Set(interest.keys), assigned: 0 });
    }
    return this.hubs;
  }
}
