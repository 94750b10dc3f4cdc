import { z } from "zod";
import { tenantLimitsView } from "../../domain/limits";
import {
  configSchema,
  createAgent,
  deleteAgent,
  getConfig,
  lookupConfigSchema,
  patchConfig,
  setConfig,
  updateAgent,
} from "../../domain/tenant-config";
import { methodParamSchemas } from "../../protocol/gateway";
import { defineMethod, openParams } from "../../registry/method";
import type { Slice } from "../../registry/slice";
import { listAgents } from "./agents";
import { CONFIG_OPERATIONS } from "./config-operations";
import { configRoutes } from "./config-routes";

/**
 * The tenant's configuration and agents, as the Control UI's Settings pages use them over the
 * gateway and `/v1/config` over HTTP, with OpenClaw's scopes: reading needs operator.read, every
 * change operator.admin. The rules are in domain/tenant-config.ts.
 */

const write = z.object({
  raw: z.string().optional(),
  baseHash: z.string().optional(),
  replacePaths: z.array(z.string()).optional(),
});
const agentFields = {
  name: z.string().max(200).optional(),
  model: z.string().max(200).nullable().optional(),
  emoji: z.string().max(32).optional(),
  avatar: z.string().max(2048).optional(),
  workspace: z.string().optional(),
};

export const configSlice: Slice = {
  name: "config",
  methods: {
    "config.get": defineMethod({
      scope: "operator.read",
      roles: [],
      params: openParams,
      handle: ({ ctx }) => getConfig(ctx),
    }),
    "config.schema": defineMethod({
      scope: "operator.read",
      roles: [],
      params: openParams,
      handle: () => configSchema(),
    }),
    "config.schema.lookup": defineMethod({
      scope: "operator.read",
      roles: [],
      params: z.object({ path: z.string().max(512) }),
      handle: ({ params }) => lookupConfigSchema(params.path),
    }),
    "config.set": defineMethod({
      scope: "operator.admin",
      roles: ["config", "secrets"],
      params: write,
      handle: ({ ctx, params }) => setConfig(ctx, params),
    }),
    "config.patch": defineMethod({
      scope: "operator.admin",
      roles: ["config", "secrets"],
      params: write,
      handle: ({ ctx, params }) => patchConfig(ctx, params),
    }),
    "agents.list": defineMethod({
      scope: "operator.read",
      roles: ["index"],
      params: methodParamSchemas["agents.list"],
      handle: ({ ctx }) => listAgents(ctx),
    }),
    "agents.create": defineMethod({
      scope: "operator.admin",
      roles: ["config", "secrets"],
      params: z.object({ ...agentFields, name: z.string().trim().min(1).max(200) }),
      handle: ({ ctx, params }) => createAgent(ctx, params),
    }),
    "agents.update": defineMethod({
      scope: "operator.admin",
      roles: ["config", "secrets"],
      params: z.object({ ...agentFields, agentId: z.string().min(1).max(64) }),
      handle: ({ ctx, params }) => updateAgent(ctx, params.agentId, params),
    }),
    "agents.delete": defineMethod({
      scope: "operator.admin",
      roles: ["config", "secrets"],
      params: z.object({ agentId: z.string().min(1).max(64), deleteFiles: z.boolean().optional() }),
      handle: ({ ctx, params }) => deleteAgent(ctx, params.agentId),
    }),
    /** This service's own: the tenant's limits in force and their use (as `GET /v1/limits`). */
    "limits.get": defineMethod({
      scope: "operator.read",
      roles: ["runs"],
      params: openParams,
      handle: ({ ctx }) => tenantLimitsView(ctx),
    }),
  },
  routes: { tenant: [configRoutes] },
  openApi: CONFIG_OPERATIONS,
};
