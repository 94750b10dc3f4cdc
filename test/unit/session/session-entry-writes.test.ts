import { describe, expect, it } from "vitest";
import { openSessionDatabase } from "../../../src/session/session-database";
import { Transcript } from "../../../src/session/transcript";
import { MemoryStorage } from "../support/memory-storage";
import { REF } from "../support/session-world";

/**
 * The session entry is written once per transaction (issue 48's cut: an append and its run's
 * start are one row), and a nested transaction that throws rolls back only its own change.
 */

function world() {
  const storage = new MemoryStorage();
  let entryWrites = 0;
  const exec = storage.sql.exec;
  storage.sql.exec = ((query: string, ...binds: unknown[]) => {
    if (/INTO entry/.test(query)) entryWrites++;
    return exec(query, ...binds);
  }) as SqlStorage["exec"];
  const store = openSessionDatabase(storage.asStorage).session;
  new Transcript(store, () => {}).ensureEntry(REF, undefined, 1_000);
  const stored = () => JSON.parse((storage.db.prepare("SELECT json FROM entry").all()[0] as { json: string }).json);
  return { store, stored, writes: () => entryWrites };
}

describe("the session entry's writes", () => {
  it("changes inside one transaction are one row written, readers see each at once", () => {
    const { store, stored, writes } = world();
    const before = writes();
    const entry = store.loadEntry()!.entry;
    store.transaction(() => {
      store.saveEntry({ ...entry, label: "first" });
      expect(store.loadEntry()!.entry.label).toBe("first");
      store.saveEntry({ ...entry, label: "second" });
    });
    expect(writes() - before).toBe(1);
    expect(stored().label).toBe("second");
    // Outside a transaction a change is written at once.
    store.saveEntry({ ...entry, label: "third" });
    expect(writes() - before).toBe(2);
    expect(stored().label).toBe("third");
  });

  it("a nested transaction that throws keeps the outer one's change, written at its end", () => {
    const { store, stored } = world();
    const entry = store.loadEntry()!.entry;
    store.transaction(() => {
      store.saveEntry({ ...entry, label: "outer" });
      expect(() =>
        store.transaction(() => {
          store.saveEntry({ ...entry, label: "inner" });
          throw new Error("inner fails");
        }),
      ).toThrow("inner fails");
      expect(store.loadEntry()!.entry.label).toBe("outer");
    });
    expect(stored().label).toBe("outer");
    expect(store.loadEntry()!.entry.label).toBe("outer");
  });

  it("an outermost transaction that throws writes nothing and reads the entry again", () => {
    const { store, stored } = world();
    const entry = store.loadEntry()!.entry;
    expect(() =>
      store.transaction(() => {
        store.saveEntry({ ...entry, label: "lost" });
        throw new Error("fails");
      }),
    ).toThrow("fails");
    expect(stored().label).toBe(entry.label);
    expect(store.loadEntry()!.entry.label).toBe(entry.label);
  });
});
