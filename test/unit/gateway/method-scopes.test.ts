import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { GATEWAY_METHODS as METHODS } from "../../../src/slices";

/**
 * Every gateway method this service answers asks for the scope the real gateway assigns to it
 * (OpenClaw's method table in the pinned `openclaw` package), so a read-only token sees the
 * console and changes nothing. Methods OpenClaw has no entry for keep this service's choice.
 */
function openclawScopes(): Map<string, string> {
  const dist = join(process.cwd(), "node_modules", "openclaw", "dist");
  const files = readdirSync(dist).filter((name) => name.startsWith("method-scopes-") && name.endsWith(".mjs"));
  const text = files.map((file) => readFileSync(join(dist, file), "utf8")).join("\n");
  const scopes = new Map<string, string>();
  for (const match of text.matchAll(/\[\s*"([^"]+)",\s*"[^"]*",\s*"(operator\.[a-z]+)"/g)) {
    if (!scopes.has(match[1]!)) scopes.set(match[1]!, match[2]!);
  }
  return scopes;
}

/** Where this service asks for less or more than OpenClaw, and why. */
const PAIRING_OR_APPROVALS =
  "OpenClaw's operator.pairing / operator.approvals scopes are not issued here; the answer is always empty, so operator.read";
const DIFFERENCES: Record<string, string> = {
  "device.pair.list": PAIRING_OR_APPROVALS,
  "channels.pairing.list": "OpenClaw's operator.pairing scope is not issued here; the pairing queue is for admins",
  "openclaw.approval.list": PAIRING_OR_APPROVALS,
};

describe("gateway method scopes", () => {
  it("are OpenClaw's for every method both have", () => {
    const theirs = openclawScopes();
    expect(theirs.size).toBeGreaterThan(100);
    const mismatches = Object.entries(METHODS)
      .filter(([name]) => theirs.has(name) && !(name in DIFFERENCES))
      .filter(([name, method]) => (method.scope ?? "operator.read") !== theirs.get(name))
      .map(([name, method]) => `${name}: ours ${method.scope ?? "none"}, OpenClaw ${theirs.get(name)}`);
    expect(mismatches).toEqual([]);
  });
});
