import { describe, expect, it } from "vitest";
import { z } from "zod";
import { usageEventOf } from "../../../src/ledger/usage-event";
import type { RunRecord } from "../../../src/model/run-types";
import { runnerCredentials } from "../../../src/policy/agent-models";
import { configOutboundRefusal } from "../../../src/policy/outbound-url";
import type { TenantConfig } from "../../../src/protocol/config";
import type { RunnerDeclaration } from "../../../src/protocol/runner-specs/runner-declaration";
import {
  RUNNER_DECLARATIONS,
  RUNNER_TYPES,
  runnerConfigSchema,
  runnerFacts,
} from "../../../src/protocol/runner-specs/runner-declarations";
import { runViewSchema } from "../../../src/protocol/runs";
import { RUNNERS } from "../../../src/runs/runners/runners";
import { deploymentKeyNames } from "../../../src/secrets/deployment-keys";

/**
 * Every per-runner place reads the runner's declaration: a runner the config accepts without a
 * declaration, a wire format, or with a fact its config holds but its declaration does not say
 * (a key the grant check would not see, a URL the outbound guard would not check, a price the
 * ledger would not apply) fails here.
 */

/** A value for each config field a runner may have (a required field without one fails the test: add it here). */
const SAMPLE: Record<string, unknown> = {
  model: "model-1",
  baseUrl: "https://models.example/v1",
  url: "https://agent.example/run",
  apiKeySecret: "MODEL_KEY_TEST",
  apiKey: { source: "store", id: "MODEL_KEY" },
  maxContextMessages: 7,
  maxTokens: 99,
  cost: { input: 3, output: 15 },
  tools: true,
  secret: { source: "store", id: "SIGNING" },
};

/** The facts that are a config field read back as it is: its declaration must say each one its config has. */
const FIELD_FACTS = ["model", "apiKey", "apiKeySecret", "cost", "maxTokens", "maxContextMessages"] as const;

type Declaration = RunnerDeclaration;
const declarations = RUNNER_DECLARATIONS as unknown as readonly Declaration[];

/** A config of the runner with every field it knows set (one key source at a time: `key` picks which). */
function sampleConfig(declaration: Declaration, key: "apiKey" | "apiKeySecret" = "apiKeySecret") {
  const config: Record<string, unknown> = { type: declaration.type };
  for (const [field, schema] of Object.entries(declaration.schema.shape)) {
    if (field === "type") continue;
    if (field in SAMPLE) config[field] = SAMPLE[field];
    else if (!(schema as z.ZodType).safeParse(undefined).success) throw new Error(`no sample for ${field}`);
  }
  delete config[key === "apiKey" ? "apiKeySecret" : "apiKey"];
  return runnerConfigSchema.parse(config);
}

/** The fields a runner's schema declares as URLs (`z.url()`): each is an outbound URL. */
function urlFields(declaration: Declaration): string[] {
  const json = z.toJSONSchema(declaration.schema, { io: "input" }) as {
    properties: Record<string, { format?: string }>;
  };
  return Object.entries(json.properties)
    .filter(([, property]) => property.format === "uri")
    .map(([field]) => field);
}

const loopbackPolicy = { allowLoopback: false, allowedHosts: [], ownOrigins: [] };

describe("the runner registry", () => {
  const types = declarations.map((declaration) => declaration.type);

  it("each runner the config accepts has one declaration and one wire format, in the list's order", () => {
    const variants = runnerConfigSchema.options.map((option) => option.shape.type.value);
    expect(variants).toEqual(types);
    expect(new Set(types).size).toBe(types.length);
    expect(RUNNER_TYPES).toEqual(types);
    expect(Object.keys(RUNNERS).sort()).toEqual([...types].sort());
    for (const declaration of declarations) {
      expect(declaration.schema.shape.type.value).toBe(declaration.type);
      expect(declaration.label.trim()).not.toBe("");
      expect(typeof RUNNERS[declaration.type as keyof typeof RUNNERS]).toBe("function");
    }
  });

  it("a run names one of the registered runners, or a fixed reply", () => {
    expect(runViewSchema.shape.runner.options).toEqual([...types, "fixed"]);
  });
});

describe.each(declarations.map((declaration) => [declaration.type, declaration] as const))(
  "the %s runner's declaration",
  (type, declaration) => {
    const config = sampleConfig(declaration) as Record<string, unknown>;
    const facts = runnerFacts(config as never);
    const shape = declaration.schema.shape as Record<string, unknown>;

    it("says each fact its config holds (model, key, price, limits)", () => {
      for (const fact of FIELD_FACTS) expect([fact, facts[fact]]).toEqual([fact, config[fact]]);
    });

    it("names every URL field of its config for the outbound guard, and only those", () => {
      expect(facts.urls.map((url) => url.field).sort()).toEqual(urlFields(declaration).sort());
      for (const { field, url } of facts.urls) {
        expect(url).toBe(config[field]);
        const refused = configOutboundRefusal(
          { agents: { defaults: { runner: { ...config, [field]: "http://127.0.0.1:9/" } } } } as TenantConfig,
          loopbackPolicy,
        );
        expect(refused?.path).toBe(`agents.defaults.runner.${field}`);
      }
    });

    it("its deployment key is named for the grant check, its own key listed as a credential", () => {
      const tenant = (runner: unknown) => ({ agents: { defaults: { runner } } }) as TenantConfig;
      expect(deploymentKeyNames(tenant(config))).toEqual("apiKeySecret" in shape ? [SAMPLE.apiKeySecret] : []);
      const listed = runnerCredentials(tenant(config), ["main"]);
      expect(listed.map((entry) => [entry.provider, entry.displayName])).toEqual(
        "apiKeySecret" in shape ? [[type, declaration.label]] : [],
      );
      if ("apiKey" in shape && "apiKeySecret" in shape) {
        const both = { ...config, apiKey: SAMPLE.apiKey, apiKeySecret: SAMPLE.apiKeySecret };
        expect(runnerConfigSchema.safeParse(both).error?.issues[0]?.message).toBe(
          "set apiKey or apiKeySecret, not both",
        );
        expect(runnerFacts(sampleConfig(declaration, "apiKey")).apiKey).toEqual(SAMPLE.apiKey);
      }
    });

    it("prices its usage by its own cost, and names its model in usage", () => {
      const run = {
        runId: "r1",
        sessionKey: "agent:main:main",
        state: "ok",
        input: { runner: config, agentId: "main", tenantId: "t" },
        createdAt: 1,
        startedAt: 1,
        endedAt: 2,
        attempts: 1,
        deferred: false,
        usage: { input: 1_000_000, output: 1_000_000, totalTokens: 2_000_000 },
        reply: "ok",
      } as unknown as RunRecord;
      const event = usageEventOf(run, undefined, {})!;
      expect([event.provider, event.model]).toEqual([type, facts.model ?? type]);
      expect(event.cost).toEqual("cost" in shape ? SAMPLE.cost : undefined);
    });

    it("a session's model choice, when it takes one, is the same runner calling that model", () => {
      const choice = facts.sessionModel;
      if (!choice) return;
      expect(choice.endpoint).toBe(config.baseUrl ?? config.url);
      const chosen = runnerConfigSchema.parse(choice.withModel("model-2"));
      expect(chosen).toEqual({ ...config, model: "model-2" });
      expect(runnerFacts(chosen).model).toBe("model-2");
    });
  },
);
