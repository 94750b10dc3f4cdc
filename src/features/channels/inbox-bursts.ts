import type { TenantConfig } from "../../protocol/config";
import type { ChannelTurn } from "./adapter";
import { burstDueAt, debounceKey, inboundDebounceMs, isDebounceable, mergedTurn } from "./debounce";
import type { DebounceStore } from "./debounce-store";
import type { InboxStore, InboxUpdate } from "./inbox-store";

/** Starts the turn of one or more updates (ChannelInbox's; its run id derives from the first). */
export type StartTurn = (updates: InboxUpdate[], turn: ChannelTurn, config: TenantConfig) => Promise<void>;

/**
 * The inbox's side of inbound debounce (src/features/channels/debounce.ts): a text turn is held on
 * its update's row (durable, so a crash inside the window loses nothing) and the burst becomes
 * one turn when its window passed, or at once before a message of the same chat that is not
 * held (a command, media), so the chat's order stays. The window is the drain's own timer.
 */
export class InboxBursts {
  constructor(
    private readonly ports: {
      bursts: DebounceStore;
      store: InboxStore;
      transaction<T>(fn: () => T): T;
    },
    private readonly startTurn: StartTurn,
  ) {}

  /**
   * Holds a decided turn for its burst (true), or flushes the chat's held burst first so the
   * turn that is not held comes after it (false: the caller starts it).
   */
  async hold(update: InboxUpdate, turn: ChannelTurn, config: TenantConfig): Promise<boolean> {
    const key = debounceKey(update.channel, turn);
    const windowMs = inboundDebounceMs(config, update.channel);
    if (windowMs > 0 && isDebounceable(turn)) {
      // A burst whose window closed before this message arrived (its flush was late: a busy
      // drain, a restart) is answered first; this message starts the next one.
      const last = this.ports.bursts.lastArrival(key);
      if (last !== undefined && burstDueAt(last, windowMs) < update.receivedAt) await this.flush(key, config);
      this.ports.bursts.hold(key, update.channel, update.updateId, turn);
      return true;
    }
    if (this.ports.bursts.has(key)) await this.flush(key, config);
    return false;
  }

  /** Turns every burst whose window passed; the time the next one is due, if any. */
  async flushDue(config: () => Promise<TenantConfig>, now: number): Promise<number | undefined> {
    const bursts = this.ports.bursts.bursts();
    if (bursts.length === 0) return undefined;
    const current = await config();
    let next: number | undefined;
    for (const burst of bursts) {
      const due = burstDueAt(burst.lastReceivedAt, inboundDebounceMs(current, burst.channel));
      if (due <= now) await this.flush(burst.key, current);
      else next = Math.min(next ?? due, due);
    }
    return next;
  }

  /** One turn for the burst's held updates (a crash after its start finds the same run). */
  private async flush(key: string, config: TenantConfig): Promise<void> {
    const { members, ackOwed } = this.ports.transaction(() => this.ports.bursts.seal(key));
    const updates = members
      .map((member) => this.ports.store.update(member.channel, member.updateId))
      .filter((update): update is InboxUpdate => update !== null);
    if (updates.length === 0) return;
    // The seal recorded the typing acknowledgement; the turn still sends it.
    if (ackOwed) updates[0] = { ...updates[0]!, acked: false, ackRecorded: true };
    await this.startTurn(updates, mergedTurn(members.map((member) => member.turn)), config);
  }
}
