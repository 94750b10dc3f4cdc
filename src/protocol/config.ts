import { z } from "zod";
import { isRefusedAgentId, isValidAgentId } from "../keys/session-key";
import { channelsConfigSchema } from "./channels";
import { type RunnerConfig, runnerConfigSchema } from "./runner-specs/runner-declarations";
import { storeSecretRefSchema } from "./secrets";

/**
 * Tenant configuration, spelled with OpenClaw's own key names so a tenant can paste the
 * relevant part of an `openclaw.json`. Every object is strict: an unknown key is an error
 * naming its path, never silently ignored.
 */

/** An agent's id as declared: OpenClaw's canonical form, never a path or a prototype name. */
const agentIdString = z
  .string()
  .min(1)
  .max(64)
  .refine((id) => isValidAgentId(id) && !isRefusedAgentId(id), "Invalid agent id");
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

/** How an agent's replies are produced: one declaration per runner (./runner-specs/, docs/runs.md, agent runs). */
export { runnerConfigSchema };

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

/** A hook mapping's template (`{{a.b}}`, `{{headers.x}}`, `{{query.x}}`, `{{path}}`, `{{now}}`). */
const hookTemplate = z.string().max(8_192);

/** One entry of `hooks.mappings` (OpenClaw's keys; transforms, presets and fan-out are not served here). */
export const hookMappingSchema = z.strictObject({
  id: z.string().min(1).max(128).optional(),
  match: z
    .strictObject({ path: z.string().min(1).max(256).optional(), source: z.string().min(1).max(256).optional() })
    .optional(),
  action: z.enum(["agent", "wake"]).optional(),
  wakeMode: z.enum(["now", "next-heartbeat"]).optional(),
  name: hookTemplate.optional(),
  agentId: agentIdString.optional(),
  sessionKey: hookTemplate.optional(),
  sessionMode: z.enum(["isolated", "persistent"]).optional(),
  messageTemplate: hookTemplate.optional(),
  textTemplate: hookTemplate.optional(),
  deliver: z.boolean().optional(),
  allowUnsafeExternalContent: z.boolean().optional(),
  channel: z.string().min(1).max(64).optional(),
  to: hookTemplate.optional(),
  model: hookTemplate.optional(),
  thinking: hookTemplate.optional(),
  timeoutSeconds: z.int().min(1).max(86_400).optional(),
});
export type HookMappingConfig = z.infer<typeof hookMappingSchema>;

/** First path segments of this service's own routes (under a tenant's base URL): a hooks path may not shadow them. */
export const OWN_ROUTE_SEGMENTS: ReadonlySet<string> = new Set([
  "v1",
  "t",
  "mcp",
  "health",
  "oauth",
  ".well-known",
  "docs",
  "openapi.json",
  "sessions",
  "tools",
]);

/**
 * OpenClaw's inbound webhooks (`hooks.*`), served at the tenant's base URL + `path`
 * (src/features/hooks/). `token` is a plain value or a store SecretRef; no read path returns it.
 */
export const hooksConfigSchema = z
  .strictObject({
    enabled: z.boolean().optional(),
    token: z.union([z.string().min(1).max(1024), storeSecretRefSchema]).optional(),
    path: z
      .string()
      .max(256)
      .regex(/^\/?[A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*\/?$/, "must be a path like /hooks")
      .refine((path) => !OWN_ROUTE_SEGMENTS.has(path.replace(/^\/+/, "").split("/")[0]!.toLowerCase()), {
        message: "may not start with a path this service serves itself (/v1, /t, /mcp, /sessions, /tools, …)",
      })
      .optional(),
    allowedAgentIds: z.array(z.string().min(1).max(64)).max(500).optional(),
    allowRequestSessionKey: z.boolean().optional(),
    allowedSessionKeyPrefixes: z.array(z.string().min(1).max(256)).max(100).optional(),
    defaultSessionKey: z.string().min(1).max(512).optional(),
    mappings: z.array(hookMappingSchema).max(100).optional(),
  })
  .superRefine((hooks, ctx) => {
    // OpenClaw refuses to start hooks without a token; here the write is refused.
    if (hooks.enabled && !hooks.token)
      ctx.addIssue({ code: "custom", path: ["token"], message: "hooks.enabled requires hooks.token" });
    const prefixes = hooks.allowedSessionKeyPrefixes?.map((prefix) => prefix.trim().toLowerCase()).filter(Boolean);
    if (!prefixes?.length) return;
    const allowed = (key: string) => prefixes.some((prefix) => key.trim().toLowerCase().startsWith(prefix));
    if (hooks.defaultSessionKey && !allowed(hooks.defaultSessionKey)) {
      ctx.addIssue({
        code: "custom",
        path: ["defaultSessionKey"],
        message: "hooks.defaultSessionKey must match hooks.allowedSessionKeyPrefixes",
      });
    }
    if (!hooks.defaultSessionKey && !allowed("hook:example")) {
      ctx.addIssue({
        code: "custom",
        path: ["allowedSessionKeyPrefixes"],
        message: "hooks.allowedSessionKeyPrefixes must include 'hook:' when hooks.defaultSessionKey is unset",
      });
    }
  });
export type HooksConfig = z.infer<typeof hooksConfigSchema>;

/**
 * Switches of OpenClaw features this service does not have. The Control UI reads them and, when
 * absent, shows OpenClaw's defaults (Tool Search and Code Mode on, browser enabled, exec on an
 * allowlist); `config.get` answers them off (policy/absent-config-features.ts), and only that
 * value is accepted back, so a write cannot claim the feature. Never stored.
 */
export const ABSENT_FEATURE_REFUSALS = {
  toolSearch:
    "Tool Search is not available on this service (the model is offered its tools directly); only enabled: false",
  codeMode: "Code Mode is not available on this service; only enabled: false",
  exec: 'exec is not available on this service (no host to run commands on); only security: "deny"',
  browser: "the browser tool is not available on this service; only enabled: false",
  skillWorkshop:
    'Skill Workshop self-learning is not available on this service (agents here have no skills); only mode: "off"',
  gatewayAuth: 'gateway auth on this service is always an operator token (Authorization: Bearer); only mode: "token"',
  update:
    "updates are not the tenant's to manage: the operator deploys this service; only checkOnStart: false and auto.enabled: false",
} as const;

const featureOff = (message: string) =>
  z.strictObject({ enabled: z.literal(false, { error: message }) }, { error: message });

/** The longest inbound debounce window a tenant may set: a held chat message waits at most this. */
export const INBOUND_DEBOUNCE_MAX_MS = 10_000;
const inboundDebounceMs = z
  .int()
  .min(0)
  .max(INBOUND_DEBOUNCE_MAX_MS, { error: `debounce windows are at most ${INBOUND_DEBOUNCE_MAX_MS} ms here` });

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
      toolSearch: featureOff(ABSENT_FEATURE_REFUSALS.toolSearch).optional(),
      codeMode: featureOff(ABSENT_FEATURE_REFUSALS.codeMode).optional(),
      exec: z
        .strictObject(
          { security: z.literal("deny", { error: ABSENT_FEATURE_REFUSALS.exec }) },
          { error: ABSENT_FEATURE_REFUSALS.exec },
        )
        .optional(),
    })
    .optional(),
  /** OpenClaw's browser tool: not available here, so only `enabled: false` (see ABSENT_FEATURE_REFUSALS). */
  browser: featureOff(ABSENT_FEATURE_REFUSALS.browser).optional(),
  /** OpenClaw's Skill Workshop: no skills here, so only self-learning off. */
  skills: z
    .strictObject(
      {
        workshop: z
          .strictObject(
            {
              autonomous: z
                .strictObject(
                  { mode: z.literal("off", { error: ABSENT_FEATURE_REFUSALS.skillWorkshop }) },
                  { error: ABSENT_FEATURE_REFUSALS.skillWorkshop },
                )
                .optional(),
            },
            { error: ABSENT_FEATURE_REFUSALS.skillWorkshop },
          )
          .optional(),
      },
      { error: ABSENT_FEATURE_REFUSALS.skillWorkshop },
    )
    .optional(),
  /** OpenClaw's self-update: the operator's deployment, so update checks and automatic updates off. */
  update: z
    .strictObject(
      {
        checkOnStart: z.literal(false, { error: ABSENT_FEATURE_REFUSALS.update }).optional(),
        auto: z
          .strictObject(
            { enabled: z.literal(false, { error: ABSENT_FEATURE_REFUSALS.update }) },
            { error: ABSENT_FEATURE_REFUSALS.update },
          )
          .optional(),
      },
      { error: ABSENT_FEATURE_REFUSALS.update },
    )
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
      /** How clients authenticate: always an operator token here (ABSENT_FEATURE_REFUSALS.gatewayAuth). */
      auth: z
        .strictObject(
          { mode: z.literal("token", { error: ABSENT_FEATURE_REFUSALS.gatewayAuth }) },
          { error: ABSENT_FEATURE_REFUSALS.gatewayAuth },
        )
        .optional(),
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
  /** OpenClaw's inbound webhooks (`/hooks/agent`, `/hooks/wake`, mappings; docs/hooks.md). */
  hooks: hooksConfigSchema.optional(),
  acp: z.strictObject({ allowedAgents: z.array(z.string().min(1)).optional() }).optional(),
  /** Chat apps the tenant's agent answers on (OpenClaw's `channels.*`, docs/channels.md). */
  channels: channelsConfigSchema.optional(),
  /**
   * OpenClaw's `messages.inbound`: the debounce window of a chat's text burst (docs/channels.md
   * "Bursts"), global and per channel, bounded by the service's ceiling.
   */
  messages: z
    .strictObject({
      inbound: z
        .strictObject({
          debounceMs: inboundDebounceMs.optional(),
          byChannel: z.record(z.string().min(1).max(64), inboundDebounceMs).optional(),
        })
        .optional(),
    })
    .optional(),

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
      sessions: z.int().min(1).optional(),
      transcriptBytesPerSession: z.int().min(1).optional(),
      transcriptBytesPerTenant: z.int().min(1).optional(),
      mediaBytesPerFile: z.int().min(1).optional(),
      mediaBytesPerTenant: z.int().min(1).optional(),
    })
    .optional(),
});

export type TenantConfig = z.infer<typeof tenantConfigSchema>;
export type SendPolicyConfig = z.infer<typeof sendPolicyConfigSchema>;
export type AgentConfig = z.infer<typeof agentConfigSchema>;
export type { RunnerConfig };

/** `PATCH /v1/config`'s query: list paths replaced whole rather than merged by `id` (as config.patch's). */
export const configPatchQuerySchema = z.strictObject({
  replacePaths: z.union([z.string().max(512), z.array(z.string().max(512)).max(64)]).optional(),
});

/** `PATCH /v1/config`'s body: any part of the config; `null` deletes a key (RFC 7396). */
export const configMergePatchSchema = z
  .record(z.string(), z.unknown())
  .meta({ description: "A JSON merge patch of the tenant config (RFC 7396; lists of objects merge by `id`)." });
