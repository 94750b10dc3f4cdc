import { Hono } from "hono";
import { putConfig } from "../../domain/tenant-admin";
import { configBoundsProblem } from "../../policy/config-bounds";
import { tenantConfigSchema } from "../../protocol/config";
import { type AppEnv, requireScope } from "../context";
import { badRequest } from "../errors";
import { readJsonValue, validJson } from "../request";

/** Tenant configuration (OpenClaw key names). Replaced whole, validated first. */
export const configRoutes = new Hono<AppEnv>();

configRoutes.get("/v1/config", requireScope("operator.admin"), async (c) => {
  return c.json({ ok: true, config: c.var.tenant.config });
});

configRoutes.put("/v1/config", requireScope("operator.admin"), async (c) => {
  const raw = await readJsonValue(c);
  // Bounded before the schema walks it (the same bounds as every other config write).
  const problem = configBoundsProblem(raw);
  if (problem) throw badRequest(`invalid config: ${problem}`);
  const config = validJson(tenantConfigSchema, raw);
  return c.json({ ok: true, config: await putConfig(c.var.tenant, config) });
});
