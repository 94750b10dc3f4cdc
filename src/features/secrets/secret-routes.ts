import { Hono } from "hono";
import { deleteSecret, listSecrets, setSecret } from "../../domain/secrets";
import { type AppEnv, requireScope } from "../../http/context";
import { badRequest, notFound } from "../../http/errors";
import { readJson } from "../../http/request";
import { secretNameSchema, secretPutBodySchema } from "../../protocol/secrets";

/** The tenant secret store (OpenClaw's secrets.store.* over HTTP): write-only `secret` entries. */
export const secretRoutes = new Hono<AppEnv>();

function nameOf(raw: string): string {
  const parsed = secretNameSchema.safeParse(raw);
  if (!parsed.success) throw badRequest(`name: ${parsed.error.issues[0]?.message ?? "invalid"}`);
  return parsed.data;
}

secretRoutes.get("/v1/secrets", requireScope("operator.admin"), async (c) => {
  return c.json({ ok: true, ...(await listSecrets(c.var.tenant)) });
});

secretRoutes.put("/v1/secrets/:name", requireScope("operator.admin"), async (c) => {
  const name = nameOf(c.req.param("name"));
  const body = await readJson(c, secretPutBodySchema);
  return c.json(await setSecret(c.var.tenant, { name, ...body }));
});

secretRoutes.delete("/v1/secrets/:name", requireScope("operator.admin"), async (c) => {
  const name = nameOf(c.req.param("name"));
  const answer = await deleteSecret(c.var.tenant, name);
  if (!answer.deleted) throw notFound(`Secret store entry not found: ${name}`);
  return c.json(answer);
});
