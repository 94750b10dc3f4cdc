import type { Context, Next } from "hono";
import type { TenantContext } from "../domain/context";
import { redeemStreamTicket } from "../domain/stream-tickets";
import { tenantApi, tenantContext } from "../stubs";
import { logAuthFailure } from "./auth-log";
import { badRequest, unauthorized } from "./errors";

/** `…/sessions/<key>/history`: the one route a stream ticket opens. */
const HISTORY_PATH = /\/sessions\/([^/]+)\/history$/;

/**
 * Authenticates a history SSE request by its `?ticket=` (EventSource sends no headers): the
 * ticket is spent whatever happens next, and grants the issuing token's scopes for that
 * session only. Anything else with a ticket and no token is refused.
 */
export async function ticketAuth(
  c: Context<{ Bindings: Env; Variables: { tenant: TenantContext } }>,
  next: Next,
  tenantId: string,
  ticket: string,
) {
  const match = c.req.method === "GET" ? HISTORY_PATH.exec(new URL(c.req.url).pathname) : null;
  if (!match?.[1]) {
    logAuthFailure(c, "stream ticket outside the history follow", tenantId);
    throw unauthorized();
  }
  const sse =
    (c.req.header("accept") ?? "").includes("text/event-stream") || ["1", "true"].includes(c.req.query("follow") ?? "");
  if (!sse) throw badRequest("a stream ticket opens the SSE follow only (Accept: text/event-stream)");
  let rawKey: string;
  try {
    rawKey = decodeURIComponent(match[1]);
  } catch {
    throw badRequest("invalid session key");
  }
  const redeemed = await redeemStreamTicket(tenantApi(c.env, tenantId), ticket, rawKey);
  if (!redeemed) {
    logAuthFailure(c, "stream ticket unknown, used, expired or for another session", tenantId);
    throw unauthorized();
  }
  c.set(
    "tenant",
    tenantContext(c.env, {
      tenantId,
      config: redeemed.config,
      principal: {
        kind: "operator",
        scopes: redeemed.grant.scopes,
        ...(redeemed.grant.tokenId ? { tokenId: redeemed.grant.tokenId } : {}),
      },
      requestUrl: c.req.url,
    }),
  );
  await next();
}
