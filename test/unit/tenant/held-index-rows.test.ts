import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { IndexColumns, SessionRow } from "../../../src/model/session-row";
import { HELD_ROWS_WRITE_MS, HeldIndexRows } from "../../../src/tenant/held-index-rows";

// The write-behind buffer in front of the index store, over a fake store: which rows it holds,
// when they reach the store (before its next statement, or on their own within
// HELD_ROWS_WRITE_MS), and what it does with rows of new and deleted transcripts.

const COLUMNS: IndexColumns = { kind: "direct", isCronRun: false, searchText: "" };

function row(key: string, updatedAt: number, sessionId = `s-${key}`): SessionRow {
  return { key, sessionId, agentId: "main", updatedAt, kind: "direct" } as SessionRow;
}

function fakeStore(transcripts: Record<string, { deleted: number }>) {
  const written: Array<{ key: string; updatedAt: number; version: number }> = [];
  let hook = () => {};
  const store = {
    beforeEachStatement: (next: () => void) => {
      hook = next;
    },
    sessionIds: { transcriptAsWritten: (sessionId: string) => transcripts[sessionId] },
    upsertSession: (r: SessionRow, version: number) => {
      written.push({ key: r.key, updatedAt: r.updatedAt, version });
      return "stored" as const;
    },
    /** A statement of the store: its hook runs first. */
    statement: () => hook(),
  };
  return { store, written };
}

describe("held index rows", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("hold the newest row per key and write it before the store's next statement", () => {
    const { store, written } = fakeStore({ "s-a": { deleted: 0 }, "s-b": { deleted: 0 } });
    const held = new HeldIndexRows(store);
    expect(held.hold(row("a", 10), 1, COLUMNS)).toBe("held");
    expect(held.hold(row("a", 20), 2, COLUMNS)).toBe("held");
    expect(held.hold(row("a", 15), 3, COLUMNS)).toBe("held");
    expect(held.hold(row("b", 5), 1, COLUMNS)).toBe("held");
    expect(written).toEqual([]);
    store.statement();
    expect(written).toEqual([
      { key: "a", updatedAt: 20, version: 2 },
      { key: "b", updatedAt: 5, version: 1 },
    ]);
    store.statement();
    expect(written).toHaveLength(2);
  });

  it("write held rows on their own within HELD_ROWS_WRITE_MS", () => {
    const { store, written } = fakeStore({ "s-a": { deleted: 0 } });
    const held = new HeldIndexRows(store);
    held.hold(row("a", 10), 1, COLUMNS);
    vi.advanceTimersByTime(HELD_ROWS_WRITE_MS - 1);
    expect(written).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(written).toEqual([{ key: "a", updatedAt: 10, version: 1 }]);
  });

  it("upsert a row of a transcript new to the index at once, and drop one of a deleted session", () => {
    const { store, written } = fakeStore({ "s-gone": { deleted: 1 } });
    const held = new HeldIndexRows(store);
    expect(held.hold(row("new", 10), 1, COLUMNS)).toBe("stored");
    expect(written).toEqual([{ key: "new", updatedAt: 10, version: 1 }]);
    expect(held.hold(row("gone", 10), 1, COLUMNS)).toBe("deleted");
    store.statement();
    vi.advanceTimersByTime(HELD_ROWS_WRITE_MS);
    expect(written).toHaveLength(1);
  });

  it("forget held rows when discarded (the tenant's storage is dropped)", () => {
    const { store, written } = fakeStore({ "s-a": { deleted: 0 } });
    const held = new HeldIndexRows(store);
    held.hold(row("a", 10), 1, COLUMNS);
    held.discard();
    store.statement();
    vi.advanceTimersByTime(HELD_ROWS_WRITE_MS);
    expect(written).toEqual([]);
  });
});
