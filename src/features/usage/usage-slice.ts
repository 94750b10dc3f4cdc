import { Hono } from "hono";
import { serviceUsageStatus } from "../../domain/service-usage-card";
import { ledgerUsage, usageRange } from "../../domain/tenant-usage";
import { type AppEnv, requireScope } from "../../http/context";
import { parseQuery } from "../../http/request";
import { tenantUsageSchema, usageRangeSchema } from "../../protocol/usage";
import { defineMethod, openParams } from "../../registry/method";
import type { Slice } from "../../registry/slice";

/** The tenant's own usage: what its objects billed and its runs used, per day (the operator's view, read by the tenant). */
const usageRoutes = new Hono<AppEnv>();

usageRoutes.get("/v1/usage", requireScope("operator.read"), async (c) => {
  const range = usageRange(parseQuery(c.req.queries(), usageRangeSchema));
  return c.json({ ok: true, ...(await ledgerUsage(c.var.tenant.ledger, c.var.tenant.tenantId, range)) });
});

export const usageSlice: Slice = {
  name: "usage",
  routes: { tenant: [usageRoutes] },
  methods: {
    // The Control UI's Usage page: the tenant's service bill as its provider card (domain/service-usage-card.ts).
    "usage.status": defineMethod({
      scope: "operator.read",
      roles: ["runs"],
      params: openParams,
      handle: ({ ctx }) => serviceUsageStatus(ctx),
    }),
  },
  openApi: [
    {
      method: "get",
      path: "/v1/usage",
      scope: "tenant",
      tag: "Usage",
      summary: "The tenant's billable units, tokens and estimated cost per UTC day",
      description:
        "What the tenant's Durable Objects billed (requests, WebSocket messages, active time, SQLite rows) and the model tokens its runs used, per day, with the estimate at Cloudflare's published prices (docs/operations.md, \"What a tenant costs\"). Default range: the current month.",
      auth: "operator.read",
      query: usageRangeSchema,
      ok: { status: 200, schema: tenantUsageSchema, description: "Usage per day." },
      errors: [400],
    },
  ],
};
