import { Hono } from "hono";
import { isAdminToken } from "../../auth/authenticate";
import { bearerToken } from "../../auth/tokens";
import { revokeToken } from "../../domain/tenant-admin";
import { createTenantBodySchema, issueTokenBodySchema, TENANT_ID_PATTERN } from "../../protocol/http";
import { tenantApi } from "../../stubs";
import type { AppEnv } from "../context";
import { conflict, notFound, unauthorized } from "../errors";
import { readJson } from "../request";

/** Deployment admin API: tenants and their tokens. Guarded by ADMIN_TOKEN. */
export const adminRoutes = new Hono<AppEnv>();

adminRoutes.use("*", async (c, next) => {
  if (!isAdminToken(c.env, bearerToken(c.req.header("authorization")))) throw unauthorized();
  await next();
});

adminRoutes.post("/tenants", async (c) => {
  const { id } = await readJson(c, createTenantBodySchema);
  const created = await tenantApi(c.env, id).create(id);
  if (!created) throw conflict(`Tenant already exists: ${id}`);
  return c.json({ id }, 201);
});

adminRoutes.post("/tenants/:id/tokens", async (c) => {
  const id = tenantIdParam(c.req.param("id"));
  const body = await readJson(c, issueTokenBodySchema);
  const scopes = [...new Set(body.scopes)];
  const issued = await tenantApi(c.env, id).issueToken(scopes, body.label);
  if (!issued) throw notFound(`Tenant not found: ${id}`);
  return c.json(issued, 201);
});

adminRoutes.delete("/tenants/:id/tokens/:tokenId", async (c) => {
  const id = tenantIdParam(c.req.param("id"));
  const tokenId = c.req.param("tokenId");
  const revoked = await revokeToken(tenantApi(c.env, id), id, tokenId);
  if (!revoked) throw notFound(`Token not found: ${tokenId}`);
  return c.json({ ok: true, tokenId, revoked: true });
});

/** Rebuilds a tenant's session index from its session objects (the index is derived data). */
adminRoutes.post("/tenants/:id/reindex", async (c) => {
  const id = tenantIdParam(c.req.param("id"));
  if (!(await tenantApi(c.env, id).exists()) && id !== c.env.DEFAULT_TENANT) throw notFound(`Tenant not found: ${id}`);
  return c.json({ ok: true, ...(await tenantApi(c.env, id).rebuildIndex()) });
});

function tenantIdParam(id: string): string {
  if (!TENANT_ID_PATTERN.test(id)) throw notFound(`Tenant not found: ${id}`);
  return id;
}
