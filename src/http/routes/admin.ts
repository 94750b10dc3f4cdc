import { Hono } from "hono";
import { isAdminToken } from "../../auth/authenticate";
import { bearerToken } from "../../auth/tokens";
import { deploymentHealth } from "../../domain/deployment-health";
import { grantDeploymentKey, listDeploymentKeys, revokeDeploymentKey } from "../../domain/deployment-key-grants";
import {
  createTenant,
  deleteTenantStep,
  issueTenantToken,
  listTenants,
  listTokens,
  reindexTenant,
  tenantInfo,
  tenantLimits,
} from "../../domain/tenant-admin";
import { adminTenantUsage, allTenantsUsage } from "../../domain/tenant-usage";
import { revokeToken } from "../../domain/token-revocation";
import { revokeGrantsApprovedBy } from "../../oauth/oauth-provider";
import { adminListQuerySchema, limitOverrideSchema } from "../../protocol/admin";
import { createTenantBodySchema, errorBody, issueTokenBodySchema, TENANT_ID_PATTERN } from "../../protocol/http";
import { deploymentKeyNameSchema } from "../../protocol/secrets";
import { allUsageQuerySchema, usageRangeSchema } from "../../protocol/usage";
import { logAuthFailure } from "../auth-log";
import type { AppEnv } from "../context";
import { badRequest, conflict, notFound, unauthorized } from "../errors";
import { parseQuery, readJson } from "../request";

/** Deployment admin API: tenants and their tokens. Guarded by ADMIN_TOKEN. */
export const adminRoutes = new Hono<AppEnv>();

adminRoutes.use("*", async (c, next) => {
  const token = bearerToken(c.req.header("authorization"));
  if (!isAdminToken(c.env, token)) {
    logAuthFailure(
      c,
      !c.env.ADMIN_TOKEN ? "admin API closed (ADMIN_TOKEN unset)" : token ? "admin token not valid" : "no bearer token",
    );
    throw unauthorized();
  }
  await next();
});

/** The deployment's missing or malformed secrets and vars, by name, with what breaks (operator only). */
adminRoutes.get("/health", async (c) => {
  return c.json({ ok: true, ...(await deploymentHealth(c.env)) });
});

adminRoutes.post("/tenants", async (c) => {
  const { id } = await readJson(c, createTenantBodySchema);
  if (!(await createTenant(c.env, id))) throw conflict(`Tenant already exists: ${id}`);
  return c.json({ id }, 201);
});

adminRoutes.get("/tenants", async (c) => {
  const query = parseQuery(c.req.queries(), adminListQuerySchema);
  return c.json({ ok: true, ...(await listTenants(c.env, query)) });
});

/** Every tenant's billable units and tokens per day, a page of tenants at a time (docs/operations.md). */
adminRoutes.get("/usage", async (c) => {
  const query = parseQuery(c.req.queries(), allUsageQuerySchema);
  return c.json({ ok: true, ...(await allTenantsUsage(c.env, query)) });
});

adminRoutes.get("/tenants/:id/usage", async (c) => {
  const query = parseQuery(c.req.queries(), usageRangeSchema);
  return c.json({ ok: true, ...(await adminTenantUsage(c.env, tenantIdParam(c.req.param("id")), query)) });
});

adminRoutes.get("/tenants/:id", async (c) => {
  return c.json({ ok: true, tenant: await tenantInfo(c.env, tenantIdParam(c.req.param("id"))) });
});

/** Deletes the tenant with all its data, a bounded step per call: 202 until done, then 200. */
adminRoutes.delete("/tenants/:id", async (c) => {
  const progress = await deleteTenantStep(c.env, tenantIdParam(c.req.param("id")));
  return c.json({ ok: true, ...progress }, progress.done ? 200 : 202);
});

adminRoutes.get("/tenants/:id/tokens", async (c) => {
  const query = parseQuery(c.req.queries(), adminListQuerySchema);
  return c.json({ ok: true, ...(await listTokens(c.env, tenantIdParam(c.req.param("id")), query)) });
});

adminRoutes.post("/tenants/:id/tokens", async (c) => {
  const id = tenantIdParam(c.req.param("id"));
  const body = await readJson(c, issueTokenBodySchema);
  const scopes = [...new Set(body.scopes)];
  return c.json(await issueTenantToken(c.env, id, scopes, body.label), 201);
});

adminRoutes.delete("/tenants/:id/tokens/:tokenId", async (c) => {
  const id = tenantIdParam(c.req.param("id"));
  const tokenId = c.req.param("tokenId");
  const revoked = await revokeToken(c.env, id, tokenId, revokeGrantsApprovedBy);
  if (!revoked) throw notFound(`Token not found: ${tokenId}`);
  return c.json({ ok: true, tokenId, revoked: true });
});

/** A tenant's limits in force, what is used of them, the operator's values and the deployment's. */
adminRoutes.get("/tenants/:id/limits", async (c) => {
  return c.json({ ok: true, ...(await tenantLimits(c.env, tenantIdParam(c.req.param("id")))) });
});

/** Replaces the operator's limits for the tenant (an empty object goes back to the deployment's). */
adminRoutes.put("/tenants/:id/limits", async (c) => {
  const override = await readJson(c, limitOverrideSchema);
  return c.json({ ok: true, ...(await tenantLimits(c.env, tenantIdParam(c.req.param("id")), override)) });
});

/** Rebuilds a tenant's session index from its session objects (the index is derived data). */
adminRoutes.post("/tenants/:id/reindex", async (c) => {
  const id = tenantIdParam(c.req.param("id"));
  return c.json({ ok: true, ...(await reindexTenant(c.env, id)) });
});

/** Deployment keys the operator granted the tenant: where each may go (DEPLOYMENT_KEY_HOSTS) and whether it is set. */
adminRoutes.get("/tenants/:id/deployment-keys", async (c) => {
  return c.json({ ok: true, ...(await listDeploymentKeys(c.env, tenantIdParam(c.req.param("id")))) });
});

/** Grants a deployment key to the tenant: its runners may name it, for the hosts it is bound to. */
adminRoutes.put("/tenants/:id/deployment-keys/:name", async (c) => {
  const granted = await grantDeploymentKey(c.env, tenantIdParam(c.req.param("id")), keyNameParam(c.req.param("name")));
  return c.json({ ok: true, ...granted }, granted.created ? 201 : 200);
});

adminRoutes.delete("/tenants/:id/deployment-keys/:name", async (c) => {
  const id = tenantIdParam(c.req.param("id"));
  return c.json({ ok: true, ...(await revokeDeploymentKey(c.env, id, keyNameParam(c.req.param("name")))) });
});

function keyNameParam(name: string): string {
  const parsed = deploymentKeyNameSchema.safeParse(name);
  if (!parsed.success) throw badRequest(`name: ${parsed.error.issues[0]!.message}`);
  return parsed.data;
}

function tenantIdParam(id: string): string {
  if (!TENANT_ID_PATTERN.test(id)) throw notFound(`Tenant not found: ${id}`);
  return id;
}

// Every other /v1/admin path is unknown here: 404 (with a valid admin token), never the tenant routes' 401.
adminRoutes.all("*", (c) =>
  c.json(errorBody("not_found", `No admin route for ${c.req.method} ${new URL(c.req.url).pathname}`), 404),
);
