import { positiveVar } from "../util/deployment-var";

/**
 * The bound on gateway sockets that have not authenticated yet (challenge phase), per tenant
 * and per client address: anyone can open them, so they may take only a small share of a
 * tenant's sockets. Checked by the tenant object before it accepts an upgrade or names a hub,
 * so a refused socket costs no object and no hub; over the bound the upgrade is answered 429.
 */

/** Unauthenticated sockets of one tenant at a time (wrangler var GATEWAY_PREAUTH_SOCKETS). */
export const DEFAULT_PREAUTH_SOCKETS = 256;
/** Unauthenticated sockets of one tenant from one client address (GATEWAY_PREAUTH_SOCKETS_PER_ADDRESS). */
export const DEFAULT_PREAUTH_SOCKETS_PER_ADDRESS = 64;
/** How long a client should wait: a socket in its handshake is gone by its deadline (15 s). */
export const PREAUTH_RETRY_AFTER_SECONDS = 15;

export type PreauthLimits = { perTenant: number; perAddress: number };

export function preauthLimits(
  env: Partial<Pick<Env, "GATEWAY_PREAUTH_SOCKETS" | "GATEWAY_PREAUTH_SOCKETS_PER_ADDRESS">>,
): PreauthLimits {
  return {
    perTenant: Math.floor(positiveVar(env.GATEWAY_PREAUTH_SOCKETS, DEFAULT_PREAUTH_SOCKETS)),
    perAddress: Math.floor(positiveVar(env.GATEWAY_PREAUTH_SOCKETS_PER_ADDRESS, DEFAULT_PREAUTH_SOCKETS_PER_ADDRESS)),
  };
}

/**
 * The client's address as Cloudflare gives it (`CF-Connecting-IP`), else the first
 * `X-Forwarded-For` hop; "" when neither is present (such clients share one budget).
 */
export function clientAddress(headers: Headers): string {
  const direct = headers.get("cf-connecting-ip")?.trim();
  if (direct) return direct.slice(0, 64);
  return (headers.get("x-forwarded-for")?.split(",")[0]?.trim() ?? "").slice(0, 64);
}

/** Why a new unauthenticated socket is refused, given those open now; undefined when admitted. */
export function preauthRefusal(open: { tenant: number; address: number }, limits: PreauthLimits): string | undefined {
  if (open.tenant >= limits.perTenant) {
    return `too many gateway sockets waiting to authenticate for this tenant (${limits.perTenant}); retry later`;
  }
  if (open.address >= limits.perAddress) {
    return `too many gateway sockets waiting to authenticate from this address (${limits.perAddress}); retry later`;
  }
  return undefined;
}
