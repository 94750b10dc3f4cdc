import { Hono } from "hono";
import { redactConfig, restoreRedacted } from "../../domain/config-redaction";
import { putConfig } from "../../domain/tenant-admin";
import { tenantConfigSchema } from "../../protocol/config";
import { type AppEnv, requireScope } from "../context";
import { readJson } from "../request";

/** Tenant configuration (OpenClaw key names). Replaced whole, validated first. */
export const configRoutes = new Hono<AppEnv>();

configRoutes.get("/v1/config", requireScope("operator.admin"), async (c) => {
  return c.json({ ok: true, config: redactConfig(c.var.tenant.config) });
});

configRoutes.put("/v1/config", requireScope("operator.admin"), async (c) => {
  const config = restoreRedacted(await readJson(c, tenantConfigSchema), c.var.tenant.config);
  return c.json({ ok: true, config: redactConfig(await putConfig(c.var.tenant, config)) });
});
