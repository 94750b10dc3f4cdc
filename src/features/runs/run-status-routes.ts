import { Hono } from "hono";
import { type AppEnv, requireScope } from "../../http/context";
import { parseQuery } from "../../http/request";
import { runListQuerySchema, runQuerySchema } from "../../protocol/runs";
import { getRun, listRuns } from "./run-lookup";

/** Runs over HTTP: one run (with `?wait=` long-poll) and a session's runs. */
export const runStatusRoutes = new Hono<AppEnv>();

runStatusRoutes.get("/v1/runs/:runId", requireScope("operator.read"), async (c) => {
  const { wait } = parseQuery(c.req.queries(), runQuerySchema);
  return c.json({ ok: true, ...(await getRun(c.var.tenant, c.req.param("runId"), wait)) });
});

runStatusRoutes.get("/v1/sessions/:key/runs", requireScope("operator.read"), async (c) => {
  const query = parseQuery(c.req.queries(), runListQuerySchema);
  return c.json({ ok: true, ...(await listRuns(c.var.tenant, c.req.param("key"), query)) });
});
