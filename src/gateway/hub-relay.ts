import type { HubApi, HubBatch, HubDelivery, HubInterest } from "../contracts/hub-api";
import type { SessionUpdate } from "../contracts/session-update";
import type { SessionRow } from "../model/session-row";
import { logWarning } from "../observability/log";
import { assignHub, TENANT_HUB, wants } from "./hub-routing";

/** Where the tenant object keeps its hubs' reports (its SQLite: a restarted object still routes). */
export type HubInterestStore = {
  load(): Map<number, HubInterest>;
  put(hub: number, interest: HubInterest, at: number): void;
};

/** Deliveries waiting for one hub; past this the oldest go (a hub that cannot keep up, as a slow socket). */
export const MAX_QUEUED_DELIVERIES = 5_000;
/** Attempts at one batch before it is given up (the hub object was restarting). */
const DELIVERY_ATTEMPTS = 3;
const RETRY_DELAY_MS = 100;

/** `assigned`: sockets sent to the hub that its reports do not count yet. */
type Hub = { interest: HubInterest; keys: Set<string>; assigned: number };
type Queue = { queued: HubDelivery[]; sending: boolean };

/**
 * The tenant object's side of the hub split: what each hub object reported, which hubs an
 * event must reach, and one ordered stream of batches per hub (a batch in flight at a time,
 * what comes meanwhile goes in the next), so each hub renders events in the tenant's order.
 * A batch is retried under the same number, which the hub uses to drop a repeat.
 */
export class HubRelay {
  private hubs: Map<number, Hub> | null = null;
  private readonly queues = new Map<number, Queue>();
  /** Names this instance's batches: a hub drops a batch it already rendered. */
  private readonly epoch = crypto.randomUUID();
  private nextBatch = 0;

  constructor(
    private readonly store: HubInterestStore,
    private readonly hubApi: (hub: number) => HubApi,
    private readonly capacity: number,
  ) {}

  /** Sockets in the hub objects, counting those assigned since a hub's last report. */
  sockets(): number {
    let sockets = 0;
    for (const hub of this.loaded().values()) sockets += hub.interest.sockets + hub.assigned;
    return sockets;
  }

  /** Where a new socket goes, given the sockets the tenant object holds itself. */
  assign(here: number): number {
    const hubs = this.loaded();
    const loads = new Map([...hubs].map(([n, hub]) => [n, { sockets: hub.interest.sockets, assigned: hub.assigned }]));
    const chosen = assignHub(here, this.capacity, loads);
    if (chosen === TENANT_HUB) return chosen;
    const hub = hubs.get(chosen) ?? { interest: emptyInterest(), keys: new Set<string>(), assigned: 0 };
    hub.assigned += 1;
    hubs.set(chosen, hub);
    return chosen;
  }

  /** A hub's report of its connections (sent whenever they change, one at a time). */
  report(index: number, interest: HubInterest): void {
    this.store.put(index, interest, Date.now());
    const hubs = this.loaded();
    const hub = hubs.get(index) ?? { interest, keys: new Set<string>(), assigned: 0 };
    // Sockets the report now counts are no longer on their way.
    hub.assigned = Math.max(0, hub.assigned - Math.max(0, interest.sockets - hub.interest.sockets));
    hub.interest = interest;
    hub.keys = new Set(interest.keys);
    if (interest.sockets === 0 && hub.assigned === 0) hubs.delete(index);
    else hubs.set(index, hub);
  }

  /**
   * Sockets in their handshake in the hub objects (as last reported, plus every socket assigned
   * since, which has not authenticated yet either): all of them, and those from one address.
   */
  handshaking(address: string): { all: number; address: number } {
    let all = 0;
    let fromAddress = 0;
    for (const hub of this.loaded().values()) {
      all += hub.assigned;
      for (const [from, count] of Object.entries(hub.interest.handshaking ?? {})) {
        all += count;
        if (from === address) fromAddress += count;
      }
    }
    return { all, address: fromAddress };
  }

  /**
   * Asks the hub reporting the most sockets in their handshake to evict one (the tenant's
   * unauthenticated budget is full); false when no hub reports any or the hub had none left.
   * The hub's next report counts the socket gone.
   */
  async evictHandshaking(): Promise<boolean> {
    let chosen: number | undefined;
    let most = 0;
    for (const [index, hub] of this.loaded()) {
      let waiting = 0;
      for (const count of Object.values(hub.interest.handshaking ?? {})) waiting += count;
      if (waiting > most) [chosen, most] = [index, waiting];
    }
    if (chosen === undefined) return false;
    return await this.hubApi(chosen).evictHandshaking();
  }

  hasReaders(): boolean {
    for (const hub of this.loaded().values()) if (hub.interest.readers > 0) return true;
    return false;
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

  /**
   * Tells every hub with sockets (config changes, revocations, the tenant's deletion); rejects
   * when one could not be told (a revocation must not report success then).
   */
  async each(tell: (hub: HubApi) => Promise<unknown>): Promise<void> {
    const indexes = [...this.loaded().keys()];
    const results = await Promise.allSettled(indexes.map((index) => tell(this.hubApi(index))));
    const failed = indexes.filter((_, i) => results[i]!.status === "rejected");
    if (failed.length > 0) throw new Error(`gateway hubs ${failed.join(", ")} could not be reached`);
  }

  /** The tenant's storage was wiped: nothing is remembered. */
  forget(): void {
    this.hubs = null;
    this.queues.clear();
  }

  private enqueue(index: number, delivery: HubDelivery): void {
    const queue = this.queues.get(index) ?? { queued: [], sending: false };
    this.queues.set(index, queue);
    queue.queued.push(delivery);
    if (queue.queued.length > MAX_QUEUED_DELIVERIES) {
      const dropped = queue.queued.splice(0, queue.queued.length - MAX_QUEUED_DELIVERIES);
      logWarning("gateway.hub_delivery_failed", { hub: index, events: dropped.length, error: "queue full" });
    }
    if (!queue.sending) void this.drain(index, queue);
  }

  private async drain(index: number, queue: Queue): Promise<void> {
    queue.sending = true;
    try {
      while (queue.queued.length > 0) {
        const batch: HubBatch = { epoch: this.epoch, seq: ++this.nextBatch, deliveries: queue.queued };
        queue.queued = [];
        await this.send(index, batch);
      }
    } finally {
      queue.sending = false;
    }
  }

  private async send(index: number, batch: HubBatch): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return void (await this.hubApi(index).deliver(batch));
      } catch (error) {
        if (attempt >= DELIVERY_ATTEMPTS) {
          // Events are not stored for sockets (as with a socket that closes); the next batch goes on.
          const events = batch.deliveries.length;
          return logWarning("gateway.hub_delivery_failed", { hub: index, events, error: String(error) });
        }
        await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS * attempt));
      }
    }
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

function emptyInterest(): HubInterest {
  return { sockets: 0, readers: 0, watchers: 0, keys: [] };
}
