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
/** How an evicted socket closes: as its handshake deadline closes it (the budget shortened it). */
export const PREAUTH_EVICTED_CLOSE = { code: 1008, reason: "handshake timeout" } as const;
/** An address longer than this is no address (it is cut, so a header cannot grow the budget's map). */
const MAX_ADDRESS_CHARS = 64;

/** `trustedProxyHops`: proxies of the operator's in front of the worker (TRUSTED_PROXY_HOPS, 0: none). */
export type PreauthLimits = { perTenant: number; perAddress: number; trustedProxyHops: number };

export function preauthLimits(
  env: Partial<Pick<Env, "GATEWAY_PREAUTH_SOCKETS" | "GATEWAY_PREAUTH_SOCKETS_PER_ADDRESS">> & {
    TRUSTED_PROXY_HOPS?: string;
  },
): PreauthLimits {
  return {
    perTenant: Math.floor(positiveVar(env.GATEWAY_PREAUTH_SOCKETS, DEFAULT_PREAUTH_SOCKETS)),
    perAddress: Math.floor(positiveVar(env.GATEWAY_PREAUTH_SOCKETS_PER_ADDRESS, DEFAULT_PREAUTH_SOCKETS_PER_ADDRESS)),
    trustedProxyHops: Math.floor(positiveVar(env.TRUSTED_PROXY_HOPS, 0)),
  };
}

/**
 * The bucket a client's unauthenticated sockets count in. With `TRUSTED_PROXY_HOPS` = n > 0
 * (the operator's own proxies in front), the n-th `X-Forwarded-For` entry from the right: each
 * proxy appends the address it saw, so only entries left of those are the client's to write.
 * Otherwise `CF-Connecting-IP` (Cloudflare and `wrangler dev` set it; a client cannot), else ""
 * (every such client shares one bucket). An IPv6 address counts per /64: one host has a whole
 * /64 to pick from.
 */
export function clientAddress(headers: Headers, trustedProxyHops = 0): string {
  if (trustedProxyHops > 0) {
    const hops = (headers.get("x-forwarded-for") ?? "")
      .split(",")
      .map((hop) => hop.trim())
      .filter(Boolean);
    // Fewer entries than trusted proxies: the request skipped one, and the leftmost entry may be
    // the client's own; the header then says nothing trustworthy.
    const client = hops.length >= trustedProxyHops ? hops[hops.length - trustedProxyHops] : undefined;
    if (client) return addressBucket(client);
  }
  return addressBucket(headers.get("cf-connecting-ip")?.trim() ?? "");
}

/** An IPv4 address as it is; an IPv6 address as its /64 (`2001:db8:1:2::/64`); an IPv4-mapped one as IPv4. */
export function addressBucket(address: string): string {
  const text = address.slice(0, MAX_ADDRESS_CHARS).toLowerCase();
  if (!text.includes(":")) return text;
  const dottedMapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(text);
  if (dottedMapped) return dottedMapped[1]!;
  const groups = ipv6Groups(text);
  if (!groups) return text;
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join(".");
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(":")}::/64`;
}

/** The eight 16-bit groups of an IPv6 address (zone and brackets ignored), or null when it is not one. */
function ipv6Groups(address: string): number[] | null {
  const text = address.replace(/%.*$/, "").replace(/^\[|\]$/g, "");
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(":") : [];
  const tail = halves[1] ? halves[1].split(":") : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array<string>(halves.length === 1 ? 0 : missing).fill("0"), ...tail];
  if (!groups.every((group) => /^[0-9a-f]{1,4}$/.test(group))) return null;
  return groups.map((group) => Number.parseInt(group, 16));
}

/**
 * What a new unauthenticated socket gets, given those open now: refused past its address's
 * bound (that address waits for its own sockets), else admitted — at the tenant's bound only
 * once another waiting socket is evicted, so a flood from many addresses holds no honest
 * client out (issue 44, finding 3).
 */
export function preauthAdmission(
  open: { tenant: number; address: number },
  limits: Pick<PreauthLimits, "perTenant" | "perAddress">,
): { refusal: string } | "admit" | "evict" {
  if (open.address >= limits.perAddress) {
    return {
      refusal: `too many gateway sockets waiting to authenticate from this address (${limits.perAddress}); retry later`,
    };
  }
  return open.tenant >= limits.perTenant ? "evict" : "admit";
}

/** The refusal when the tenant's bound is full and no waiting socket could be evicted. */
export function preauthTenantRefusal(limits: Pick<PreauthLimits, "perTenant">): string {
  return `too many gateway sockets waiting to authenticate for this tenant (${limits.perTenant}); retry later`;
}
