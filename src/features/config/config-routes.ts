import { Hono } from "hono";
import { tenantLimitsView } from "../../domain/limits";
import { putConfig } from "../../domain/tenant-admin";
import { mergeConfig, withStoredCredentials } from "../../domain/tenant-config";
import { type AppEnv, requireScope } from "../../http/context";
import { ApiError, badRequest } from "../../http/errors";
import { parseQuery, readJsonValue, validJson } from "../../http/request";
import { configBoundsProblem } from "../../policy/config-bounds";
import { configPatchQuerySchema, tenantConfigSchema } from "../../protocol/config";
import { redactConfig } from "../../render/config-redaction";

/**
 * Tenant configuration (OpenClaw key names). Replaced whole (PUT) or merged (PATCH, as the
 * gateway's config.patch), bounded and validated first; read and answered with credentials inside
 * URLs redacted, as the gateway's config.get.
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

/** The media types a merge patch may be sent as (RFC 7396's own, and plain JSON for curl). */
const MERGE_PATCH_TYPES = ["application/merge-patch+json", "application/json"];

// A JSON merge patch (RFC 7396) merged as config.patch merges: `null` deletes a key, objects merge,
// lists of objects with `id` merge entry by entry (unless named in ?replacePaths=), other lists replace.
configRoutes.patch("/v1/config", requireScope("operator.admin"), async (c) => {
  const mediaType = (c.req.header("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (!MERGE_PATCH_TYPES.includes(mediaType)) {
    throw new ApiError(415, "unsupported_media_type", `content-type must be ${MERGE_PATCH_TYPES.join(" or ")}`);
  }
  const query = parseQuery(c.req.queries(), configPatchQuerySchema);
  const patch = await readJsonValue(c);
  // Bounded before the merge walks it (the same bounds as every other config write).
  const problem = configBoundsProblem(patch);
  if (problem) throw badRequest(`invalid config: ${problem}`);
  if (patch === null || typeof patch !== "object" || Array.isArray(patch)) {
    throw badRequest("a config merge patch must be a JSON object (PUT /v1/config replaces the whole config)");
  }
  const replacePaths = query.replacePaths === undefined ? [] : [query.replacePaths].flat();
  const merged = await mergeConfig(c.var.tenant, patch as Record<string, unknown>, { replacePaths });
  return c.json({ ok: true, config: merged.config, changedPaths: merged.changedPaths });
});
