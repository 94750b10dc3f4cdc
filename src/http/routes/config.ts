import { Hono } from "hono";
import { tenantLimitsView } from "../../domain/limits";
import { putConfig } from "../../domain/tenant-admin";
import { tenantConfigSchema } from "../../protocol/config";
import { type AppEnv, requireScope } from "../context";
import { readJson } from "../request";

/** Tenant configuration (OpenClaw key names). Replaced whole, validated first. */
export const configRoutes = new Hono<AppEnv>();

configRoutes.get("/v1/config", requireScope("operator.admin"), async (c) => {
  return c.json({ ok: true, config: c.var.tenant.config });
});

/** The tenant's limits in force and what is used of them (docs/operations.md "Tenant limits"). */
configRoutes.get("/v1/limits", requireScope("operator.read"), async (c) => {
  return c.json({ ok: true, ...(await tenantLimitsView(c.var.tenant)) });
});

configRoutes.put("/v1/config", requireScope("operator.admin"), async (c) => {
  const config = await readJson(c, tenantConfigSchema);
  return c.json({ ok: true, config: await putConfig(c.var.tenant, config) });
});
