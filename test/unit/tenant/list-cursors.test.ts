import { describe, expect, it } from "vitest";
import { ListCursors } from "../../../src/tenant/list-cursors";

describe("ListCursors", () => {
  const at = (key: string) => ({ updatedAt: 1, key });

  it("finds a page's end by filter and offset, whatever page size asked for it", () => {
    const cursors = new ListCursors();
    cursors.set({ search: "a", limit: 10, agentId: "main" }, 10, at("k10"));
    expect(cursors.get({ agentId: "main", search: "a", limit: 50 }, 10)).toEqual(at("k10"));
    expect(cursors.get({ agentId: "main", search: "a" }, 20)).toBeUndefined();
    expect(cursors.get({ agentId: "main", search: "b" }, 10)).toBeUndefined();
    expect(cursors.get({ agentId: "main", search: "a", scope: { kind: "self", key: "x" } }, 10)).toBeUndefined();
  });

  it("forgets the least recently used ends beyond its capacity", () => {
    const cursors = new ListCursors(2);
    cursors.set({}, 1, at("one"));
    cursors.set({}, 2, at("two"));
    cursors.get({}, 1);
    cursors.set({}, 3, at("three"));
    expect(cursors.size).toBe(2);
    expect(cursors.get({}, 2)).toBeUndefined();
    expect(cursors.get({}, 1)).toEqual(at("one"));
    expect(cursors.get({}, 3)).toEqual(at("three"));
  });
});
