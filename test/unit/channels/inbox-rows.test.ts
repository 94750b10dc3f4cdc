import { describe, expect, it } from "vitest";
import type { ChannelTurn } from "../../../src/features/channels/adapter";
import { DEBOUNCE_SCHEMA, DebounceStore } from "../../../src/features/channels/debounce-store";
import { InboxDrainSchedule } from "../../../src/features/channels/inbox-drain";
import { INBOX_SCHEMA, InboxStore, startingKey } from "../../../src/features/channels/inbox-store";
import { migrate } from "../../../src/storage/migrations";
import { MemoryStorage } from "../support/memory-storage";

/**
 * The inbox's rows after issue 48's cut (src/features/channels/debounce-store.ts,
 * inbox-drain.ts): a held update is its own row with its burst's columns, a burst held by the
 * older version (its own table) is still turned after the migration, the seal records the typing
 * acknowledgement, and the drain is scheduled in memory, never postponed.
 */

const turn = (text: string): ChannelTurn => ({
  sessionKey: "agent:main:main",
  text,
  seed: {},
  replyTarget: { channel: "telegram", to: "telegram:501" },
  senderId: "501",
  ack: { chatId: "501" },
});

function stores(storage: MemoryStorage) {
  return { inbox: new InboxStore(storage.sql), bursts: new DebounceStore(storage.sql) };
}

describe("the inbox's held updates (debounce-store.ts)", () => {
  it("a burst the older version held in channel_bursts is turned after the migration, its seal kept", () => {
    const storage = new MemoryStorage();
    // The older version: its own burst table, the update moved to `held`.
    migrate(storage.asStorage, [
      INBOX_SCHEMA,
      { ...DEBOUNCE_SCHEMA, migrations: DEBOUNCE_SCHEMA.migrations.slice(0, 2) },
    ]);
    const { inbox } = stores(storage);
    inbox.accept("telegram", "1", "{}", null, 1000);
    inbox.accept("telegram", "2", "{}", null, 1100);
    inbox.accept("telegram", "3", "{}", null, 1200);
    const held = (id: string, text: string, at: number, sealedBy: string | null) => {
      storage.sql.exec("UPDATE channel_updates SET state = 'held' WHERE update_id = ?", id);
      storage.sql.exec(
        "INSERT INTO channel_bursts (channel, update_id, burst_key, turn, received_at, sealed_by) VALUES ('telegram', ?, 'k', ?, ?, ?)",
        id,
        JSON.stringify(turn(text)),
        at,
        sealedBy,
      );
    };
    held("1", "quick one", 1000, "1");
    held("2", "quick two", 1100, "1");
    held("3", "after the seal", 1200, null);

    migrate(storage.asStorage, [INBOX_SCHEMA, DEBOUNCE_SCHEMA]);
    const after = stores(storage);
    expect(after.inbox.nextPending()).toBeNull();
    expect(after.inbox.hasPending()).toBe(false);
    expect(after.inbox.hasOpen()).toBe(true);
    expect(after.inbox.counts("telegram")).toEqual({ pending: 3, handled: 0 });
    expect(after.bursts.bursts()).toEqual([{ key: "k", channel: "telegram", lastReceivedAt: 1200 }]);
    // Sealed before the upgrade: the same two members, the third starts the next burst.
    const { members, ackOwed } = after.bursts.seal("k");
    expect(members.map((m) => [m.updateId, m.turn.text, m.sealedBy])).toEqual([
      ["1", "quick one", "1"],
      ["2", "quick two", "1"],
    ]);
    expect(ackOwed).toBe(false);
    for (const m of members) after.inbox.finish("telegram", m.updateId, "turn", 2000);
    expect(after.bursts.seal("k").members.map((m) => m.updateId)).toEqual(["3"]);
    expect(storage.db.prepare("SELECT name FROM sqlite_master WHERE name = 'channel_bursts'").all()).toEqual([]);
  });

  it("a held update stays on its row, out of the drain's way; the seal also records the first member's acknowledgement", () => {
    const storage = new MemoryStorage();
    migrate(storage.asStorage, [INBOX_SCHEMA, DEBOUNCE_SCHEMA]);
    const { inbox, bursts } = stores(storage);
    inbox.accept("telegram", "10", "{}", null, 1000);
    inbox.accept("telegram", "11", "{}", null, 1050);
    bursts.hold("k", "telegram", "10", turn("one"));
    bursts.hold("k", "telegram", "11", turn("two"));
    expect(inbox.nextPending()).toBeNull();
    expect(bursts.lastArrival("k")).toBe(1050);
    expect(bursts.has("k")).toBe(true);

    const sealed = bursts.seal("k");
    expect(sealed.ackOwed).toBe(true);
    expect(sealed.members.map((m) => m.turn.text)).toEqual(["one", "two"]);
    expect(inbox.update("telegram", "10")?.acked).toBe(true);
    expect(inbox.update("telegram", "11")?.acked).toBe(false);
    // A crash after the seal: the same members, the acknowledgement not owed again.
    const again = bursts.seal("k");
    expect(again.ackOwed).toBe(false);
    expect(again.members.map((m) => m.updateId)).toEqual(["10", "11"]);

    for (const m of again.members) inbox.finish("telegram", m.updateId, "turn", 2000);
    expect(bursts.has("k")).toBe(false);
    expect(bursts.bursts()).toEqual([]);
    expect(inbox.counts("telegram")).toEqual({ pending: 0, handled: 2 });
  });
});

describe("the inbox's drain schedule (inbox-drain.ts)", () => {
  it("is never postponed, is taken once when due, and runs one drain at a time", async () => {
    const drains = new InboxDrainSchedule();
    expect(drains.takeDue(1000)).toBe(false);
    drains.at(1300); // a burst's window end
    drains.at(1000); // an update accepted meanwhile
    drains.at(1300);
    expect(drains.next()).toBe(1000);
    expect(drains.takeDue(999)).toBe(false);
    expect(drains.takeDue(1000)).toBe(true);
    expect(drains.next()).toBeUndefined();
    expect(drains.takeDue(5000)).toBe(false);

    const order: string[] = [];
    let release!: () => void;
    const first = drains.once(
      () =>
        new Promise<void>((resolve) => {
          order.push("first starts");
          release = () => {
            order.push("first ends");
            resolve();
          };
        }),
    );
    const second = drains.once(async () => {
      order.push("second runs");
    });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(order).toEqual(["first starts"]);
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(["first starts", "first ends", "second runs"]);
    // A failed drain does not stop the next one.
    await expect(drains.once(async () => Promise.reject(new Error("platform down")))).rejects.toThrow("platform down");
    await expect(drains.once(async () => undefined)).resolves.toBeUndefined();
  });
});

describe("the pending updates beside the lanes (inbox-lanes.ts)", () => {
  it("the next pending update passes by the ones whose turn is starting and by held ones, oldest first", () => {
    const storage = new MemoryStorage();
    migrate(storage.asStorage, [INBOX_SCHEMA, DEBOUNCE_SCHEMA]);
    const { inbox, bursts } = stores(storage);
    for (const [id, at] of [
      ["1", 1000],
      ["2", 1100],
      ["3", 1200],
      ["4", 1300],
    ] as const)
      inbox.accept("telegram", id, "{}", null, at);
    bursts.hold("k", "telegram", "2", turn("held"));
    const next = (...starting: string[]) =>
      inbox.nextPendingBut(new Set(starting.map((id) => startingKey("telegram", id))))?.updateId ?? null;
    expect(next()).toBe("1");
    expect(next("1")).toBe("3");
    expect(next("1", "3")).toBe("4");
    expect(next("1", "3", "4")).toBeNull();
    // A key of another channel is another update.
    expect(inbox.nextPendingBut(new Set([startingKey("slack", "1")]))?.updateId).toBe("1");
  });
});
