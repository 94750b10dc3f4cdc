import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { missingMutationTarget } from "../../../src/gateway/session-target";
import { GATEWAY_METHODS as METHODS } from "../../../src/slices";

/**
 * OpenClaw's session mutation policy, from the pinned `openclaw` package (its
 * gateway/session-method-policy): which methods need a session target, the param naming it, and
 * which start a run (admins are not spared those). Read by name from the module's export list, as
 * the bundle renames its exports.
 */
type OpenclawPolicy = {
  isRequiredSessionTargetMethod(method: string): boolean;
  sessionMutationTargetFields(method: string): string[];
  isAgentRunStartMethod(method: string, params?: unknown): boolean;
};

async function openclawPolicy(): Promise<OpenclawPolicy> {
  const dist = join(process.cwd(), "node_modules", "openclaw", "dist");
  const file = readdirSync(dist).find((name) => name.startsWith("session-method-policy-") && name.endsWith(".mjs"));
  if (!file) throw new Error("openclaw's session-method-policy module is missing from node_modules/openclaw/dist");
  const text = readFileSync(join(dist, file), "utf8");
  const exported = /export \{([^}]*)\}/.exec(text)?.[1] ?? "";
  const alias = new Map(
    exported.split(",").map((part) => {
      const [name, as] = part.trim().split(/\s+as\s+/);
      return [name!, as ?? name!] as const;
    }),
  );
  const module = (await import(`file://${join(dist, file)}`)) as Record<string, unknown>;
  const pick = <F>(name: string) => {
    const fn = module[alias.get(name) ?? name];
    if (typeof fn !== "function") throw new Error(`openclaw's ${name} is not exported by ${file}`);
    return fn as F;
  };
  return {
    isRequiredSessionTargetMethod: pick("isRequiredSessionTargetMethod"),
    sessionMutationTargetFields: pick("sessionMutationTargetFields"),
    isAgentRunStartMethod: pick("isAgentRunStartMethod"),
  };
}

/** Methods OpenClaw refuses without a target that are answered here without one, and why. */
const DIFFERENCES: Record<string, string> = {
  "progressCard.get": "no progress cards here: any params get the empty card, so a missing target refuses nothing",
};

let openclaw: OpenclawPolicy;
beforeAll(async () => {
  openclaw = await openclawPolicy();
});

describe("session mutation targets, declared by each method (defineMethod's mutatesSession)", () => {
  it("are OpenClaw's: every method it refuses without a session target declares that target's param", async () => {
    expect(openclaw.isRequiredSessionTargetMethod("chat.send")).toBe(true);
    const mismatches = Object.entries(METHODS)
      .filter(([name]) => !(name in DIFFERENCES))
      .flatMap(([name, method]) => {
        const theirs = openclaw.isRequiredSessionTargetMethod(name)
          ? openclaw.sessionMutationTargetFields(name)[0]
          : undefined;
        return method.mutatesSession === theirs ? [] : [`${name}: ours ${method.mutatesSession}, OpenClaw ${theirs}`];
      });
    expect(mismatches).toEqual([]);
  });

  it("declare a run start where OpenClaw does (its admins need a target there too)", () => {
    const mismatches = Object.entries(METHODS)
      .filter(([name]) => Boolean(METHODS[name]?.startsRun) !== openclaw.isAgentRunStartMethod(name, {}))
      .map(([name, method]) => `${name}: ours ${method.startsRun ? "starts" : "starts no"} run`);
    expect(mismatches).toEqual([]);
  });

  it("refuse a request without a usable target as OpenClaw does, for writers and (run starts only) admins", () => {
    for (const [name, method] of Object.entries(METHODS)) {
      if (name in DIFFERENCES) continue;
      const required = openclaw.isRequiredSessionTargetMethod(name);
      const field = openclaw.sessionMutationTargetFields(name)[0] ?? "key";
      const refusal = { code: "SESSION_MUTATION_TARGET_REQUIRED", method: name };
      for (const params of [{}, { [field]: "   " }, { [field]: 5 }, null]) {
        expect(missingMutationTarget(name, method, params, false), `${name} ${JSON.stringify(params)}`).toEqual(
          required ? refusal : null,
        );
        const adminRefused = required && openclaw.isAgentRunStartMethod(name, params ?? {});
        expect(missingMutationTarget(name, method, params, true), `${name} as admin`).toEqual(
          adminRefused ? refusal : null,
        );
      }
      expect(missingMutationTarget(name, method, { [field]: "main" }, false)).toBeNull();
    }
  });
});
