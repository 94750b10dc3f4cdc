import { Hono } from "hono";
import { z } from "zod";
import { transcriptMessageSchema } from "../../protocol/session";
import { type AppEnv, requireScope } from "../context";
import { forbidden, notFound } from "../errors";
import { readJson } from "../request";

/** Webhook run callbacks (run token only) and the runner secret (tenant admins). */
export const runRoutes = new Hono<AppEnv>();

const progressSchema = z.strictObject({
  text: z.string().max(1_000_000).optional(),
  messages: z.array(transcriptMessageSchema).max(100).optional(),
});
const completeSchema = z.strictObject({
  reply: z.string().max(1_800_000).optional(),
  error: z.string().max(10_000).optional(),
  usage: z
    .strictObject({
      input: z.number().nonnegative(),
      output: z.number().nonnegative(),
      totalTokens: z.number().nonnegative(),
    })
    .optional(),
  toolMessages: z.array(transcriptMessageSchema).max(100).optional(),
});

/** The callback must carry the run token minted for exactly this run. */
function runKeyFor(c: { var: AppEnv["Variables"] }, runId: string): string {
  const principal = c.var.tenant.principal;
  if (principal.kind !== "run" || principal.claims.runId !== runId)
    throw forbidden("run callbacks need this run's run token");
  return principal.claims.sessionKey;
}

runRoutes.post("/v1/runs/:runId/events", requireScope("operator.write", { allowRunToken: true }), async (c) => {
  const runId = c.req.param("runId");
  const key = runKeyFor(c, runId);
  const body = await readJson(c, progressSchema);
  const result = await c.var.tenant.sessions(key).runCallback(runId, {
    kind: "progress",
    ...(body.text !== undefined ? { text: body.text } : {}),
    ...(body.messages ? { messages: body.messages } : {}),
  });
  if (result.state === null) throw notFound(`Run not found: ${runId}`);
  return c.json({ ok: true, runId, accepted: result.ok, state: result.state });
});

runRoutes.post("/v1/runs/:runId/complete", requireScope("operator.write", { allowRunToken: true }), async (c) => {
  const runId = c.req.param("runId");
  const key = runKeyFor(c, runId);
  const body = await readJson(c, completeSchema);
  const result = await c.var.tenant.sessions(key).runCallback(runId, { kind: "complete", ...body });
  if (result.state === null) throw notFound(`Run not found: ${runId}`);
  // A late or repeated completion is acknowledged without changing anything.
  return c.json({ ok: true, runId, completed: result.ok, state: result.state });
});

/** The HMAC key webhook run requests are signed with; POST rotates it. */
runRoutes.get("/v1/runner-secret", requireScope("operator.admin"), async (c) => {
  return c.json({ ok: true, secret: await c.var.tenant.tenant.runnerSecret() });
});
runRoutes.post("/v1/runner-secret/rotate", requireScope("operator.admin"), async (c) => {
  return c.json({ ok: true, secret: await c.var.tenant.tenant.runnerSecret(true) });
});
