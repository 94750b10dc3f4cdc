import { z } from "zod";
import { OPERATOR_SCOPES } from "./http";

/** Shapes of the deployment admin API (`/v1/admin/*`, ADMIN_TOKEN). */

export const ADMIN_LIST_DEFAULT_LIMIT = 50;
export const ADMIN_LIST_MAX_LIMIT = 500;

export const adminListQuerySchema = z.object({
  limit: z
    .int("limit must be a whole number")
    .min(1, "limit must be at least 1")
    .optional()
    .describe(`Items per page (default ${ADMIN_LIST_DEFAULT_LIMIT}, at most ${ADMIN_LIST_MAX_LIMIT}).`),
  cursor: z.string().min(1).max(200).optional().describe("nextCursor of the previous page."),
});

export const tenantSummarySchema = z
  .object({
    id: z.string(),
    createdAt: z.number().describe("Epoch ms the directory first recorded the tenant."),
    status: z.enum(["active", "deleting"]),
  })
  .meta({ id: "TenantSummary" });

export const tenantListSchema = z
  .object({
    ok: z.literal(true),
    tenants: z.array(tenantSummarySchema).describe("By id."),
    hasMore: z.boolean(),
    nextCursor: z.string().optional(),
  })
  .meta({ id: "TenantList" });

export const tenantInfoSchema = z
  .object({
    ok: z.literal(true),
    tenant: z.object({
      id: z.string(),
      createdAt: z.number(),
      status: z.enum(["active", "deleting"]),
      sessions: z.number().describe("Sessions in the tenant's index."),
      tokens: z.number().describe("Operator tokens issued and not revoked."),
    }),
  })
  .meta({ id: "TenantInfo" });

export const tokenInfoSchema = z
  .object({
    tokenId: z.string().describe("The public half of the token (`ocs_<tokenId>.<secret>`)."),
    scopes: z.array(z.enum(OPERATOR_SCOPES)),
    label: z.string().optional(),
    createdAt: z.number(),
    lastUsedAt: z.number().optional().describe("Recorded at most once a minute per token."),
  })
  .meta({ id: "TokenInfo" });

export const tokenListSchema = z
  .object({
    ok: z.literal(true),
    tenantId: z.string(),
    tokens: z.array(tokenInfoSchema).describe("Newest first. Secrets and hashes are never listed."),
    hasMore: z.boolean(),
    nextCursor: z.string().optional(),
  })
  .meta({ id: "TokenList" });

export const tenantDeletionSchema = z
  .object({
    ok: z.literal(true),
    tenantId: z.string(),
    status: z.enum(["deleting", "deleted"]),
    done: z.boolean().describe("False: call DELETE again (each call does a bounded step)."),
    deletingSince: z.number().optional(),
    sessions: z.object({
      deleted: z.number().describe("Sessions deleted by this call (transcripts, runs, attachments)."),
      failed: z.number().describe("Sessions whose deletion failed in this call (retried by the next call)."),
      remaining: z.number(),
    }),
    attachments: z.object({ deleted: z.number().describe("Leftover attachment files removed by this call.") }),
  })
  .meta({ id: "TenantDeletion" });

export const issuedTokenSchema = z
  .object({
    tokenId: z.string(),
    token: z.string().describe("Shown once; only its SHA-256 is stored."),
    scopes: z.array(z.enum(OPERATOR_SCOPES)),
  })
  .meta({ id: "IssuedToken" });

export const deploymentKeySchema = z
  .object({
    name: z.string().describe("A MODEL_KEY_* deployment secret (never its value)."),
    source: z
      .enum(["admin", "dev"])
      .describe(
        "`admin`: granted by this API; `dev`: by DEV_DEPLOYMENT_KEY_GRANTS (default tenant, local development).",
      ),
    grantedAt: z.number().optional(),
    hosts: z.array(z.string()).describe("The hosts DEPLOYMENT_KEY_HOSTS binds the key to; none: it is sent nowhere."),
    set: z.boolean().describe("Whether the deployment has a value for it."),
  })
  .meta({ id: "DeploymentKey" });

export const deploymentKeyListSchema = z
  .object({ ok: z.literal(true), tenantId: z.string(), keys: z.array(deploymentKeySchema) })
  .meta({ id: "DeploymentKeyList" });

export const deploymentKeyGrantedSchema = z
  .object({
    ok: z.literal(true),
    tenantId: z.string(),
    created: z.boolean().describe("False when the key was granted already (201 / 200)."),
    key: deploymentKeySchema,
  })
  .meta({ id: "DeploymentKeyGranted" });

export const deploymentKeyRevokedSchema = z
  .object({ ok: z.literal(true), tenantId: z.string(), name: z.string(), revoked: z.literal(true) })
  .meta({ id: "DeploymentKeyRevoked" });

/** The operator's limits for one tenant (`PUT /v1/admin/tenants/<id>/limits`): each replaces the deployment default. */
export const limitOverrideSchema = z
  .strictObject({
    runsInFlight: z.int().min(1).optional().describe("Model calls of the tenant's runs at once."),
    runsQueued: z.int().min(1).optional().describe("Runs admitted and waiting for a model slot."),
    runStartsPerMinute: z.int().min(1).optional().describe("Runs started per minute from every door."),
    toolsPerMinute: z.int().min(1).optional().describe("Tool calls per minute (/tools/invoke, MCP)."),
    completionsPerMinute: z.int().min(1).optional().describe("Runs per minute through the OpenAI routes."),
    searchesPerMinute: z.int().min(1).optional().describe("sessions.search calls per minute."),
    tokensPerDay: z.int().min(1).optional().describe("Tokens the tenant's runs may use per UTC day (a spend cap)."),
    sockets: z.int().min(1).optional().describe("Gateway WebSockets of the tenant at once (all its hub objects)."),
    cronJobs: z.int().min(1).optional().describe("Automations (cron jobs) of the tenant."),
    cronMinIntervalMs: z.int().min(1).optional().describe("The shortest interval an automation may repeat at."),
    sessions: z.int().min(1).optional().describe("Sessions the tenant may have (index rows)."),
    transcriptBytesPerSession: z.int().min(1).optional().describe("Message bytes one session may hold."),
    transcriptBytesPerTenant: z.int().min(1).optional().describe("Message bytes all the tenant's sessions may hold."),
  })
  .meta({ id: "LimitOverride" });

const limitUseSchema = z.object({
  limit: z.number().describe("In force: min(the tenant's config, the operator's value or the deployment's)."),
  used: z.number().optional().describe("Used now, where the limit is counted at this moment."),
});
const limitValuesSchema = z.object({
  runsInFlight: z.number(),
  runsQueued: z.number(),
  runStartsPerMinute: z.number(),
  toolsPerMinute: z.number(),
  completionsPerMinute: z.number(),
  searchesPerMinute: z.number(),
  tokensPerDay: z.number(),
  sockets: z.number(),
  cronJobs: z.number(),
  cronMinIntervalMs: z.number(),
  sessions: z.number(),
  transcriptBytesPerSession: z.number(),
  transcriptBytesPerTenant: z.number(),
});

/** `GET /v1/limits`: the tenant's limits in force and what is used of them. */
export const limitsResponseSchema = z
  .object({
    ok: z.literal(true),
    limits: z.object({
      runsInFlight: limitUseSchema,
      runsQueued: limitUseSchema,
      runStartsPerMinute: limitUseSchema,
      toolsPerMinute: limitUseSchema,
      completionsPerMinute: limitUseSchema,
      searchesPerMinute: limitUseSchema,
      tokensPerDay: limitUseSchema,
      sockets: limitUseSchema,
      cronJobs: limitUseSchema,
      cronMinIntervalMs: limitUseSchema,
      sessions: limitUseSchema,
      transcriptBytesPerSession: limitUseSchema,
      transcriptBytesPerTenant: limitUseSchema,
    }),
  })
  .meta({ id: "Limits" });

/** `GET|PUT /v1/admin/tenants/<id>/limits`: also the operator's values and the deployment's. */
export const adminLimitsResponseSchema = limitsResponseSchema
  .extend({ override: limitOverrideSchema, deployment: limitValuesSchema })
  .meta({ id: "AdminLimits" });
