import { z } from "zod";
import { tenantLimitsView } from "../domain/limits";
import {
  configSchema,
  createAgent,
  deleteAgent,
  getConfig,
  lookupConfigSchema,
  patchConfig,
  setConfig,
  updateAgent,
} from "../domain/tenant-config";
import type { OperatorScope } from "../protocol/http";
import { simpleMethod as method, openParams, type SimpleMethod } from "./simple-method";

/**
 * The tenant's configuration and agents over the gateway, as the Control UI's Settings pages
 * use them, with OpenClaw's scopes: reading needs operator.read, every change operator.admin.
 * The rules are in domain/tenant-config.ts.
 */

const READ: OperatorScope = "operator.read";
const ADMIN: OperatorScope = "operator.admin";
const write = z.looseObject({
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

export const CONFIG_METHODS: Record<string, SimpleMethod> = {
  "config.get": method({ scope: READ, params: openParams, handle: ({ ctx }) => getConfig(ctx) }),
  "config.schema": method({ scope: READ, params: openParams, handle: () => configSchema() }),
  "config.schema.lookup": method({
    scope: READ,
    params: z.looseObject({ path: z.string().max(512) }),
    handle: ({ params }) => lookupConfigSchema(params.path),
  }),
  "config.set": method({ scope: ADMIN, params: write, handle: ({ ctx, params }) => setConfig(ctx, params) }),
  "config.patch": method({ scope: ADMIN, params: write, handle: ({ ctx, params }) => patchConfig(ctx, params) }),
  "agents.create": method({
    scope: ADMIN,
    params: z.looseObject({ ...agentFields, name: z.string().trim().min(1).max(200) }),
    handle: ({ ctx, params }) => createAgent(ctx, params),
  }),
  "agents.update": method({
    scope: ADMIN,
    params: z.looseObject({ ...agentFields, agentId: z.string().min(1).max(64) }),
    handle: ({ ctx, params }) => updateAgent(ctx, params.agentId, params),
  }),
  "agents.delete": method({
    scope: ADMIN,
    params: z.looseObject({ agentId: z.string().min(1).max(64), deleteFiles: z.boolean().optional() }),
    handle: ({ ctx, params }) => deleteAgent(ctx, params.agentId),
  }),
  /** This service's own: the tenant's limits in force and their use (as `GET /v1/limits`). */
  "limits.get": method({ scope: READ, params: openParams, handle: ({ ctx }) => tenantLimitsView(ctx) }),
};
