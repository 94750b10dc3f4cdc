import { describe, expect, it } from "vitest";
import {
  absentFeatureDeletion,
  withAbsentFeaturesOff,
  withoutAbsentFeatures,
} from "../../../src/policy/absent-config-features";
import type { TenantConfig } from "../../../src/protocol/config";

const OFF = {
  tools: { toolSearch: { enabled: false }, codeMode: { enabled: false }, exec: { security: "deny" } },
  browser: { enabled: false },
  skills: { workshop: { autonomous: { mode: "off" } } },
  gateway: { auth: { mode: "token" } },
  update: { checkOnStart: false, auto: { enabled: false } },
} as const;

describe("the switches of features this service does not have", () => {
  it("are answered off over the stored config, which keeps its own keys and is not changed", () => {
    const stored: TenantConfig = { tools: { profile: "coding" } };
    expect(withAbsentFeaturesOff(stored)).toEqual({ ...OFF, tools: { ...OFF.tools, profile: "coding" } });
    expect(stored).toEqual({ tools: { profile: "coding" } });
  });

  it("are dropped before storing, with a parent only they filled, so a round trip stores the same config", () => {
    expect(withoutAbsentFeatures(withAbsentFeaturesOff({}) as TenantConfig)).toEqual({});
    const kept: TenantConfig = {
      tools: { profile: "full" },
      session: { scope: "global" },
      gateway: { tools: { deny: ["sessions_send"] } },
    };
    expect(withoutAbsentFeatures(withAbsentFeaturesOff(kept))).toEqual(kept);
  });

  it("may not be deleted by a merge patch (that asks for OpenClaw's default: on); other deletions pass", () => {
    expect(absentFeatureDeletion({ tools: { toolSearch: null } })).toMatchObject({ path: "tools.toolSearch" });
    expect(absentFeatureDeletion({ tools: { codeMode: { enabled: null } } })).toMatchObject({
      path: "tools.codeMode",
    });
    expect(absentFeatureDeletion({ browser: null })?.refusal).toMatch(/browser tool is not available/);
    expect(absentFeatureDeletion({ skills: { workshop: { autonomous: { mode: null } } } })?.refusal).toMatch(
      /Skill Workshop self-learning is not available/,
    );
    expect(absentFeatureDeletion({ update: { checkOnStart: null } })).toMatchObject({ path: "update" });
    expect(absentFeatureDeletion({ gateway: { auth: null } })).toMatchObject({ path: "gateway.auth" });
    expect(absentFeatureDeletion({ tools: null })).toBeUndefined();
    expect(absentFeatureDeletion({ tools: { profile: null, toolSearch: { enabled: false } } })).toBeUndefined();
  });
});
