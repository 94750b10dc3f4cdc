import { Hono } from "hono";
import { stream } from "hono/streaming";
import { type AppEnv, requireScope } from "../../http/context";
import { readJson } from "../../http/request";
import { importBodySchema } from "../../protocol/import";
import { exportLines, importPage } from "./transfer";

/** Sessions in and out of a tenant: import pages (`npm run import`) and the tenant-wide JSONL export. */
export const transferRoutes = new Hono<AppEnv>();

/** One page of a source transcript at its source positions; repeats and resumes write nothing twice. */
transferRoutes.post("/v1/sessions/:key/import", requireScope("operator.write"), async (c) => {
  const body = await readJson(c, importBodySchema);
  const result = await importPage(c.var.tenant, c.req.param("key"), body);
  return c.json({ ok: true, ...result }, result.created ? 201 : 200);
});

/** Every session's entry and transcripts as JSONL, streamed page by page. */
transferRoutes.get("/v1/export", requireScope("operator.read"), (c) => {
  c.header("content-type", "application/x-ndjson; charset=UTF-8");
  c.header("content-disposition", `attachment; filename="${c.var.tenant.tenantId}-sessions.jsonl"`);
  return stream(c, async (out) => {
    for await (const chunk of exportLines(c.var.tenant)) await out.write(chunk);
  });
});
