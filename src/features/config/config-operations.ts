import { z } from "zod";
import type { Operation } from "../../http/openapi/operations";
import { limitsResponseSchema } from "../../protocol/admin";
import { configMergePatchSchema, configPatchQuerySchema, tenantConfigSchema } from "../../protocol/config";

/** The tenant's config and limits over HTTP. */
export const CONFIG_OPERATIONS: Operation[] = [
  {
    method: "get",
    path: "/v1/config",
    scope: "tenant",
    tag: "Config",
    summary: "The tenant config (OpenClaw key names; credentials inside URLs redacted)",
    auth: "operator.read",
    ok: {
      status: 200,
      schema: z.object({ ok: z.literal(true), config: tenantConfigSchema }),
      description:
        'The config; a URL with a user, password or credential query parameter reads "__OPENCLAW_REDACTED__".',
    },
  },
  {
    method: "get",
    path: "/v1/limits",
    scope: "tenant",
    tag: "Config",
    summary: "The tenant's limits in force and what is used of them",
    auth: "operator.read",
    ok: { status: 200, schema: limitsResponseSchema, description: "The limits." },
  },
  {
    method: "put",
    path: "/v1/config",
    scope: "tenant",
    tag: "Config",
    summary:
      'Replace the whole tenant config (validated whole; unknown keys are errors; "__OPENCLAW_REDACTED__" keeps the stored URL)',
    description:
      "PUT replaces: every key the body leaves out is removed (a Slack setup sent alone switches Telegram off). Use PATCH to change part of the config.",
    auth: "operator.admin",
    body: tenantConfigSchema,
    ok: {
      status: 200,
      schema: z.object({ ok: z.literal(true), config: tenantConfigSchema }),
      description: "The stored config.",
    },
    errors: [400, 503],
  },
  {
    method: "patch",
    path: "/v1/config",
    scope: "tenant",
    tag: "Config",
    summary: "Merge a JSON merge patch into the tenant config (as the gateway's config.patch)",
    description:
      "RFC 7396: `null` deletes a key, objects merge, lists of objects with `id` merge entry by entry (unless named in `replacePaths`), other lists replace. The result is validated whole, as PUT. Sent as `application/merge-patch+json` or `application/json`; a write that raced it is 409.",
    auth: "operator.admin",
    query: configPatchQuerySchema,
    body: configMergePatchSchema,
    bodyContentTypes: ["application/merge-patch+json", "application/json"],
    ok: {
      status: 200,
      schema: z.object({ ok: z.literal(true), config: tenantConfigSchema, changedPaths: z.array(z.string()) }),
      description: "The stored config (redacted) and the leaf paths the patch changed.",
    },
    errors: [400, 409, 415],
  },
];
