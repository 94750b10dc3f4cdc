import { Hono } from "hono";
import { issueStreamTicket } from "../../domain/stream-tickets";
import { type AppEnv, requireScope } from "../../http/context";

/** `POST /sessions/{key}/history/stream-ticket`: a one-minute, single-use ticket for EventSource. */
export const streamTicketRoutes = new Hono<AppEnv>();

streamTicketRoutes.post("/sessions/:key/history/stream-ticket", requireScope("operator.read"), async (c) => {
  const tenantId = c.req.param("tenantId");
  const issued = await issueStreamTicket(c.var.tenant, c.req.param("key"), tenantId ? `/t/${tenantId}` : "");
  return c.json({ ok: true, ...issued }, 201);
});
