import { z } from "zod";
import { storeSecretRefSchema } from "./secrets";

/**
 * Tenant configuration, spelled with OpenClaw's own key names so a tenant can paste the
 * relevant part of an `openclaw.json`. Every object is strict: an unknown key is an error
 * naming its path, never silently ignored.
 */

const agentIdString = z.string().min(1).max(64);
const toolNames = z.array(z.string().min(1).max(128)).max(200);

export const sendPolicyRuleSchema = z.strictObject({
  action: z.enum(["allow", "deny"]).optional(),
  match: z
    .strictObject({
      channel: z.string().min(1).optional(),
      chatType: z.string().min(1).optional(),
      keyPrefix: z.string().min(1).optional(),
      rawKeyPrefix: z.string().min(1).optional(),
    })
    .optional(),
});

export const sendPolicyConfigSchema = z.strictObject({
  default: z.enum(["allow", "deny"]).optional(),
  rules: z.array(sendPolicyRuleSchema).max(200).optional(),
});

/** OpenClaw's tool policy keys (`tools.profile` / `allow` / `deny`); names, `group:<section>` or `*`. */
export const toolPolicySchema = z.strictObject({
  profile: z.enum(["minimal", "coding", "messaging", "full"]).optional(),
  allow: toolNames.optional(),
  deny: toolNames.optional(),
});
export type ToolPolicyConfig = z.infer<typeof toolPolicySchema>;

/**
 * Tool rounds one run may take before it is stopped as an error (this service's extension:
 * the real gateway has no cap; a hosted service needs one).
 */
const maxToolRounds = z.int().min(1).max(1000);

const sandboxSchema = z.strictObject({
  mode: z.enum(["off", "non-main", "all"]).optional(),
  sessionToolsVisibility: z.enum(["spawned", "all"]).optional(),
});

const subagentDefaultsSchema = z.strictObject({
  maxSpawnDepth: z.int().min(1).max(5).optional(),
  // OpenClaw allows 1–20; this service accepts up to 1,000 for fan-out heavy tenants.
  maxChildrenPerAgent: z.int().min(1).max(1000).optional(),
  runTimeoutSeconds: z.int().min(0).optional(),
  archiveAfterMinutes: z.int().min(0).optional(),
  allowAgents: z.array(z.string().min(1)).optional(),
  model: z.string().min(1).optional(),
  thinking: z.string().min(1).optional(),
  requireAgentId: z.boolean().optional(),
});

/** `https://app.example.com` (scheme, host, port; no path), or "*" for any origin. */
const browserOrigin = z.string().refine((value) => value === "*" || isOrigin(value), {
  message: 'must be an origin like https://app.example.com (scheme, host and port, no path or trailing slash), or "*"',
});

function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === "https:" || url.protocol === "http:") && url.origin === value;
  } catch {
    return false;
  }
}

/** How an agent's replies are produced (this service's extension, see README "Runners"). */
/** A worker secret named for a model key (never the key itself); only MODEL_KEY_* can be read. */
const deploymentKeyName = z
  .string()
  .regex(/^MODEL_KEY_[A-Z0-9_]{1,64}$/, "must name a worker secret starting with MODEL_KEY_");

/** A model's price in USD per million tokens (OpenClaw's model `cost`): usage reports cost with it. */
const modelCostSchema = z.strictObject({ input: z.number().min(0), output: z.number().min(0) });

export const runnerConfigSchema = z
  .discriminatedUnion("type", [
    z.strictObject({ type: z.literal("echo") }),
    z.strictObject({
      type: z.literal("openai"),
      baseUrl: z.url(),
      model: z.string().min(1),
      /**
       * Name of the worker secret holding the API key (never the key itself). Only names
       * starting with MODEL_KEY_ can be read, so a tenant cannot point at deployment secrets.
       */
      apiKeySecret: deploymentKeyName.optional(),
      /** The tenant's own key: a SecretRef to its secret store (OpenClaw's `apiKey` form). */
      apiKey: storeSecretRefSchema.optional(),
      maxContextMessages: z.int().min(1).max(500).optional(),
      /** The model's output cap per call (sent as `max_completion_tokens`). */
      maxTokens: z.int().min(1).max(1_000_000).optional(),
      cost: modelCostSchema.optional(),
    }),
    z.strictObject({
      type: z.literal("anthropic"),
      /** Default https://api.anthropic.com/v1; any Messages-API-compatible endpoint. */
      baseUrl: z.url().optional(),
      model: z.string().min(1),
      apiKeySecret: deploymentKeyName.optional(),
      /** The tenant's own key: a SecretRef to its secret store. */
      apiKey: storeSecretRefSchema.optional(),
      maxContextMessages: z.int().min(1).max(500).optional(),
      /** The model's output cap per call (`max_tokens`, which the Messages API requires; default 4096). */
      maxTokens: z.int().min(1).max(1_000_000).optional(),
      cost: modelCostSchema.optional(),
    }),
    z.strictObject({
      type: z.literal("webhook"),
      url: z.url(),
      /** Offer the session tools to the host: it may answer with `toolCalls` for this service to run. */
      tools: z.boolean().optional(),
      /** Signs run requests with this store secret instead of the tenant's runner secret. */
      secret: storeSecretRefSchema.optional(),
    }),
  ])
  .superRefine((runner, ctx) => {
    if ((runner.type === "openai" || runner.type === "anthropic") && runner.apiKey && runner.apiKeySecret) {
      ctx.addIssue({ code: "custom", path: ["apiKey"], message: "set apiKey or apiKeySecret, not both" });
    }
  });

export const agentConfigSchema = z.strictObject({
  id: agentIdString,
  name: z.string().min(1).optional(),
  /** The agent's identity in the Control UI (OpenClaw's agents.create/update `emoji` / `avatar`). */
  emoji: z.string().min(1).max(32).optional(),
  avatar: z.string().min(1).max(2048).optional(),
  default: z.boolean().optional(),
  model: z.string().min(1).optional(),
  sandbox: sandboxSchema.optional(),
  subagents: z
    .strictObject({
      allowAgents: z.array(z.string().min(1)).optional(),
      model: z.string().min(1).optional(),
      requireAgentId: z.boolean().optional(),
    })
    .optional(),
  runner: runnerConfigSchema.optional(),
  /** Which tools this agent's model is offered (OpenClaw's per-agent `tools`). */
  tools: toolPolicySchema.optional(),
  maxToolRounds: maxToolRounds.optional(),
});

export const tenantConfigSchema = z.strictObject({
  session: z
    .strictObject({
      scope: z.enum(["per-sender", "global"]).optional(),
      mainKey: z.string().min(1).max(128).optional(),
      dmScope: z.enum(["main", "per-peer", "per-channel-peer", "per-account-channel-peer"]).optional(),
      sendPolicy: sendPolicyConfigSchema.optional(),
      agentToAgent: z.strictObject({ maxPingPongTurns: z.int().min(0).max(5).optional() }).optional(),
    })
    .optional(),
  tools: z
    .strictObject({
      profile: toolPolicySchema.shape.profile,
      allow: toolNames.optional(),
      deny: toolNames.optional(),
      sessions: z.strictObject({ visibility: z.enum(["self", "tree", "agent", "all"]).optional() }).optional(),
      agentToAgent: z
        .strictObject({ enabled: z.boolean().optional(), allow: z.array(z.string().min(1)).optional() })
        .optional(),
      sessions_spawn: z
        .strictObject({
          attachments: z
            .strictObject({
              enabled: z.boolean().optional(),
              maxFiles: z.int().min(1).max(50).optional(),
              maxFileBytes: z.int().min(1).optional(),
              maxTotalBytes: z.int().min(1).optional(),
              retainOnSessionKeep: z.boolean().optional(),
            })
            .optional(),
        })
        .optional(),
      subagents: z
        .strictObject({ tools: z.strictObject({ allow: toolNames.optional(), deny: toolNames.optional() }).optional() })
        .optional(),
    })
    .optional(),
  agents: z
    .strictObject({
      defaults: z
        .strictObject({
          model: z.string().min(1).optional(),
          subagents: subagentDefaultsSchema.optional(),
          sandbox: sandboxSchema.optional(),
          runner: runnerConfigSchema.optional(),
          timeoutSeconds: z.int().min(1).max(86_400).optional(),
          tools: toolPolicySchema.optional(),
          maxToolRounds: maxToolRounds.optional(),
        })
        .optional(),
      list: z.array(agentConfigSchema).max(500).optional(),
    })
    .optional(),
  gateway: z
    .strictObject({
      tools: z.strictObject({ allow: toolNames.optional(), deny: toolNames.optional() }).optional(),
      /** Browser origins allowed to call this tenant's HTTP API (CORS); none by default. OpenClaw's key. */
      controlUi: z.strictObject({ allowedOrigins: z.array(browserOrigin).max(100).optional() }).optional(),
      /** The OpenAI-compatible routes (OpenClaw's keys; on unless set to false here, see docs/openai.md). */
      http: z
        .strictObject({
          endpoints: z
            .strictObject({
              chatCompletions: z.strictObject({ enabled: z.boolean().optional() }).optional(),
              responses: z.strictObject({ enabled: z.boolean().optional() }).optional(),
            })
            .optional(),
        })
        .optional(),
    })
    .optional(),
  acp: z.strictObject({ allowedAgents: z.array(z.string().min(1)).optional() }).optional(),
  /** Where "posted to a channel" deliveries go (this service's extension). */
  delivery: z
    .strictObject({
      webhookUrl: z.url().optional(),
      maxAttempts: z.int().min(1).max(20).optional(),
    })
    .optional(),
  /**
   * Tool calls per minute (/tools/invoke, MCP) and OpenAI-route runs per minute (this
   * service's extension). Like `limits`: lowers the operator's ceiling, never raises it.
   */
  rateLimit: z
    .strictObject({
      toolsPerMinute: z.int().min(1).optional(),
      /** Runs started per minute per tenant through /v1/chat/completions and /v1/responses. */
      completionsPerMinute: z.int().min(1).optional(),
    })
    .optional(),
  /**
   * The tenant's own limits (this service's extension, docs/operations.md "Tenant limits"):
   * each only lowers the limit the operator set; a higher value has no effect.
   */
  limits: z
    .strictObject({
      runsInFlight: z.int().min(1).optional(),
      runsQueued: z.int().min(1).optional(),
      runStartsPerMinute: z.int().min(1).optional(),
      searchesPerMinute: z.int().min(1).optional(),
      tokensPerDay: z.int().min(1).optional(),
      sockets: z.int().min(1).optional(),
      cronJobs: z.int().min(1).optional(),
      /** A floor: the tenant may only raise it. */
      cronMinIntervalMs: z.int().min(1).optional(),
    })
    .optional(),
});

export type TenantConfig = z.infer<typeof tenantConfigSchema>;
export type SendPolicyConfig = z.infer<typeof sendPolicyConfigSchema>;
export type AgentConfig = z.infer<typeof agentConfigSchema>;
export type RunnerConfig = z.infer<typeof runnerConfigSchema>;
