import { z } from "zod";
import type { Operation } from "../../http/openapi/operations";
import { limitsResponseSchema } from "../../protocol/admin";
import { tenantConfigSchema } from "../../protocol/config";

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
      'Replace the tenant config (validated whole; unknown keys are errors; "__OPENCLAW_REDACTED__" keeps the stored URL)',
    auth: "operator.admin",
    body: tenantConfigSchema,
    ok: {
      status: 200,
      schema: z.object({ ok: z.literal(true), config: tenantConfigSchema }),
      description: "The stored config.",
    },
    errors: [400, 503],
  },
];
