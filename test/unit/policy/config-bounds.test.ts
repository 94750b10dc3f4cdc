import { describe, expect, it } from "vitest";
import { configBoundsProblem, MAX_CONFIG_CHARS, MAX_CONFIG_DEPTH } from "../../../src/policy/config-bounds";

describe("config write bounds", () => {
  it("measure any nesting without recursion and refuse past the depth", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(configBoundsProblem(deep, "[]")).toContain("nested deeper");
    let atLimit: unknown = 1;
    for (let i = 0; i < MAX_CONFIG_DEPTH; i++) atLimit = { a: atLimit };
    expect(configBoundsProblem(atLimit)).toBeUndefined();
    expect(configBoundsProblem({ a: atLimit })).toContain("nested deeper");
  });

  it("refuse a config larger than the size bound", () => {
    expect(configBoundsProblem({ s: "x".repeat(MAX_CONFIG_CHARS) })).toContain("larger than");
    expect(configBoundsProblem({ s: "x".repeat(MAX_CONFIG_CHARS - 10) })).toBeUndefined();
  });
});
