import { Hono } from "hono";
import { tenantLimitsView } from "../../domain/limits";
import { putConfig } from "../../domain/tenant-admin";
import { withStoredCredentials } from "../../domain/tenant-config";
import { type AppEnv, requireScope } from "../../http/context";
import { badRequest } from "../../http/errors";
import { readJsonValue, validJson } from "../../http/request";
import { configBoundsProblem } from "../../policy/config-bounds";
import { tenantConfigSchema } from "../../protocol/config";
import { redactConfig } from "../../render/config-redaction";

/**
 * Tenant configuration (OpenClaw key names). Replaced whole, bounded and validated first; read
 * and answered with credentials inside URLs redacted, as the gateway's config.get.
 */
export const configRoutes = new Hono<AppEnv>();

// Reading needs operator.read, as OpenClaw's config.get; credentials inside URLs are redacted.
configRoutes.get("/v1/config", requireScope("operator.read"), async (c) => {
  return c.json({ ok: true, config: redactConfig(c.var.tenant.config) });
});

/** The tenant's limits in force and what is used of them (docs/operations.md "Tenant limits"). */
configRoutes.get("/v1/limits", requireScope("operator.read"), async (c) => {
  return c.json({ ok: true, ...(await tenantLimitsView(c.var.tenant)) });
});

configRoutes.put("/v1/config", requireScope("operator.admin"), async (c) => {
  const raw = await readJsonValue(c);
  // Bounded before the schema walks it (the same bounds as every other config write).
  const problem = configBoundsProblem(raw);
  if (problem) throw badRequest(`invalid config: ${problem}`);
  const config = validJson(tenantConfigSchema, withStoredCredentials(c.var.tenant, raw));
  return c.json({ ok: true, config: redactConfig(await putConfig(c.var.tenant, config)) });
});
