import type { OperatorScope } from "../protocol/http";

/** A token's access is trusted from memory this long (a token's last use is recorded per minute too). */
export const GATEWAY_TOKEN_TTL_MS = 60_000;
const MAX_ENTRIES = 10_000;

export type GatewayAccess = { scopes: readonly OperatorScope[]; tokenId?: string };
type Entry = { access: GatewayAccess; until: number };

/**
 * Successful `connect` authentications of one tenant object: a burst of sockets with the same
 * token hashes and looks it up once. Revocation evicts at once (`forgetToken`), in the same
 * object that closes the token's sockets, so a revoked token is never a cache hit.
 */
export class TokenCache {
  private readonly entries = new Map<string, Entry>();

  get(token: string, now = Date.now()): GatewayAccess | undefined {
    const hit = this.entries.get(token);
    if (!hit) return undefined;
    if (hit.until > now) return hit.access;
    this.entries.delete(token);
    return undefined;
  }

  remember(token: string, access: GatewayAccess, now = Date.now()): void {
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(token, { access, until: now + GATEWAY_TOKEN_TTL_MS });
  }

  /** Drops a revoked token's entry. */
  forgetToken(tokenId: string): void {
    for (const [token, entry] of this.entries) if (entry.access.tokenId === tokenId) this.entries.delete(token);
  }

  clear(): void {
    this.entries.clear();
  }
}
