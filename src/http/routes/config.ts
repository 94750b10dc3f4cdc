import { Hono } from "hono";
import { forgetAccess } from "../../auth/access-cache";
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
  const stored = await c.var.tenant.tenant.putConfig(config);
  forgetAccess(c.var.tenant.tenantId);
  return c.json({ ok: true, config: stored });
});
