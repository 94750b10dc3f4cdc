import { Hono } from "hono";
import { runCallback } from "../../domain/runs";
import { type AppEnv, requireScope } from "../../http/context";
import { readJson } from "../../http/request";
import { runCompleteBodySchema, runProgressBodySchema } from "../../protocol/webhooks";
import { dropUndefined } from "../../util/encoding";

/** Webhook run callbacks (run token only) and the runner secret (tenant admins). */
export const runRoutes = new Hono<AppEnv>();

runRoutes.post(
  "/v1/runs/:runId/events",
  requireScope("operator.write", { allowRunToken: true, allowEndedRun: true }),
  async (c) => {
    const runId = c.req.param("runId");
    const body = await readJson(c, runProgressBodySchema);
    const result = await runCallback(c.var.tenant, runId, { kind: "progress", ...dropUndefined(body) });
    return c.json({ ok: true, runId, accepted: result.ok, state: result.state });
  },
);

runRoutes.post(
  "/v1/runs/:runId/complete",
  requireScope("operator.write", { allowRunToken: true, allowEndedRun: true }),
  async (c) => {
    const runId = c.req.param("runId");
    const body = await readJson(c, runCompleteBodySchema);
    const result = await runCallback(c.var.tenant, runId, { kind: "complete", ...body });
    // A late or repeated completion is acknowledged without changing anything.
    return c.json({ ok: true, runId, completed: result.ok, state: result.state });
  },
);

/** The HMAC key webhook run requests are signed with; POST rotates it. */
runRoutes.get("/v1/runner-secret", requireScope("operator.admin"), async (c) => {
  return c.json({ ok: true, secret: await c.var.tenant.tenant.runnerSecret() });
});
runRoutes.post("/v1/runner-secret/rotate", requireScope("operator.admin"), async (c) => {
  return c.json({ ok: true, secret: await c.var.tenant.tenant.runnerSecret(true) });
});
