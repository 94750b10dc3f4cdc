import type { TenantAccessApi } from "../contracts/tenant-api";
import type { TenantConfig } from "../protocol/config";
import { STREAM_TICKET_TTL_MS, type StreamTicketGrant } from "../protocol/stream-ticket";
import { sha256Hex, toBase64Url } from "../util/encoding";
import type { TenantContext } from "./context";
import { DomainError } from "./errors";
import { canonicalKey } from "./keys";

/**
 * Stream tickets: a browser's EventSource cannot send an Authorization header, and a
 * long-lived token must never sit in a URL. An operator trades its token for a ticket that
 * opens one SSE follow of one session, once, within STREAM_TICKET_TTL_MS.
 */

const TICKET_PREFIX = "ost_";

export async function issueStreamTicket(
  ctx: TenantContext<"access">,
  rawKey: string,
  /** Path prefix of the tenant as the caller reached it ("" at the root, "/t/<id>" otherwise). */
  prefix: string,
): Promise<{ ticket: string; url: string; expiresAt: number }> {
  const principal = ctx.principal;
  if (principal.kind !== "operator") throw new DomainError("forbidden", "stream tickets are for operator tokens");
  const key = canonicalKey(ctx, rawKey);
  if (!(await ctx.sessions(key).entry())) throw new DomainError("not_found", `Session not found: ${key}`);
  const ticket = `${TICKET_PREFIX}${toBase64Url(crypto.getRandomValues(new Uint8Array(32)))}`;
  const expiresAt = Date.now() + STREAM_TICKET_TTL_MS;
  const grant: StreamTicketGrant = {
    key,
    scopes: [...principal.scopes],
    ...(principal.tokenId ? { tokenId: principal.tokenId } : {}),
  };
  if (!(await ctx.tenant.issueStreamTicket(await sha256Hex(ticket), grant, expiresAt)))
    throw new DomainError("not_found", `Tenant not found: ${ctx.tenantId}`);
  return { ticket, url: `${prefix}/sessions/${encodeURIComponent(key)}/history?ticket=${ticket}`, expiresAt };
}

/**
 * Redeems a ticket for the session a history URL names: its grant and the tenant config, or
 * null when the ticket is unknown, used, expired, from a revoked token, or for another session.
 */
export async function redeemStreamTicket(
  tenant: TenantAccessApi,
  ticket: string,
  rawKey: string,
): Promise<{ grant: StreamTicketGrant; config: TenantConfig } | null> {
  if (!ticket.startsWith(TICKET_PREFIX) || ticket.length > 100) return null;
  const redeemed = await tenant.redeemStreamTicket(await sha256Hex(ticket));
  if (!redeemed) return null;
  let key: string;
  try {
    key = canonicalKey({ config: redeemed.config }, rawKey);
  } catch {
    return null;
  }
  return key === redeemed.grant.key ? redeemed : null;
}
