import { Hono } from "hono";
import { type AppEnv, requireScope } from "../../http/context";
import { badRequest } from "../../http/errors";
import { parseQuery, readJson, readJsonValue } from "../../http/request";
import { describeZodError } from "../../protocol/describe";
import {
  addCronJob,
  cronRuns,
  cronStatus,
  getCronJob,
  listCronJobs,
  removeCronJob,
  runCronJob,
  updateCronJob,
} from "./automations";
import {
  cronAddParamsSchema,
  cronJobListQuerySchema,
  cronPatchSchema,
  cronRunBodySchema,
  cronRunsQuerySchema,
} from "./cron-schemas";

/** Automations (OpenClaw's cron.* over HTTP): the same jobs, rules and answers as the gateway's. */
export const automationRoutes = new Hono<AppEnv>();

automationRoutes.get("/v1/automations", requireScope("operator.read"), async (c) => {
  const query = parseQuery(c.req.queries(), cronJobListQuerySchema);
  return c.json({ ok: true, ...(await listCronJobs(c.var.tenant, query)) });
});

automationRoutes.post("/v1/automations", requireScope("operator.admin"), async (c) => {
  const params = await readJson(c, cronAddParamsSchema);
  return c.json({ ok: true, job: await addCronJob(c.var.tenant, params) }, 201);
});

automationRoutes.get("/v1/automations/status", requireScope("operator.read"), async (c) => {
  return c.json({ ok: true, ...(await cronStatus(c.var.tenant)) });
});

automationRoutes.get("/v1/automations/runs", requireScope("operator.read"), async (c) => {
  const query = parseQuery(c.req.queries(), cronRunsQuerySchema);
  return c.json({ ok: true, ...(await cronRuns(c.var.tenant, { ...query, scope: "all" })) });
});

automationRoutes.get("/v1/automations/:id", requireScope("operator.read"), async (c) => {
  return c.json({ ok: true, job: await getCronJob(c.var.tenant, c.req.param("id")) });
});

automationRoutes.patch("/v1/automations/:id", requireScope("operator.admin"), async (c) => {
  const patch = await readJson(c, cronPatchSchema);
  return c.json({ ok: true, job: await updateCronJob(c.var.tenant, c.req.param("id"), patch) });
});

automationRoutes.delete("/v1/automations/:id", requireScope("operator.admin"), async (c) => {
  return c.json(await removeCronJob(c.var.tenant, c.req.param("id")));
});

automationRoutes.post("/v1/automations/:id/run", requireScope("operator.admin"), async (c) => {
  // The body is optional: `{ "mode": "due" | "force" | "if-enabled" }`.
  const raw = Number(c.req.header("content-length") ?? "0") > 0 ? await readJsonValue(c) : undefined;
  const parsed = cronRunBodySchema.safeParse(raw);
  if (!parsed.success) throw badRequest(describeZodError(parsed.error));
  return c.json(await runCronJob(c.var.tenant, c.req.param("id"), parsed.data?.mode ?? "force"), 202);
});

automationRoutes.get("/v1/automations/:id/runs", requireScope("operator.read"), async (c) => {
  const query = parseQuery(c.req.queries(), cronRunsQuerySchema);
  return c.json({ ok: true, ...(await cronRuns(c.var.tenant, { ...query, id: c.req.param("id"), scope: "job" })) });
});
