import { Hono } from "hono";
import { putConfig } from "../../domain/tenant-admin";
import { tenantConfigSchema } from "../../protocol/config";
import { type AppEnv, requireScope } from "../context";
import { readJson } from "../request";

/** Tenant configuration (OpenClaw key names). Replaced whole, validated first. */
export const configRoutes = new Hono<AppEnv>();

configRoutes.get("/v1/config", requireScope("operator.admin"), async (c) => {
  return c.json({ ok: true, config: c.var.tenant.config });
});

configRoutes.put("/v1/config", requireScope("operator.admin"), async (c) => {
  const config = await readJson(c, tenantConfigSchema);
  return c.json({ ok: true, config: await putConfig(c.var.tenant, config) });
});
