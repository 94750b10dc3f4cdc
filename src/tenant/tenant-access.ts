import { isDevOperatorToken } from "../auth/authenticate";
import { retireSharedAccess } from "../auth/grant-cache";
import { constantTimeEqual, mintToken, parseTokenId, sha256Hex } from "../auth/tokens";
import type { IssuedToken, TenantAccess } from "../contracts/tenant-api";
import type { TenantConfig } from "../protocol/config";
import { OPERATOR_SCOPES, type OperatorScope } from "../protocol/http";
import type { StreamTicketGrant } from "../protocol/stream-ticket";
import { sessionApi } from "../stubs";
import type { TenantStore } from "./tenant-store";
import type { TokenStore } from "./token-store";

/** A token's last use is written at most this often (admin lists show it to the minute). */
export const LAST_USED_RESOLUTION_MS = 60_000;

export type TenantAccessDeps = {
  env: Env;
  tenantStore: TenantStore;
  tokens: TokenStore;
  /** Closes the token's gateway connections (revocation, tenant deletion). */
  closeConnections(tokenId: string): unknown;
  /** Ends SSE follows opened with tokens, in their session objects. */
  endFollows(follows: { tokenId: string; sessionKey: string }[]): Promise<void>;
};

/**
 * Who may act for the tenant: operator tokens (minted, checked by id and SHA-256, revoked with
 * their connections and follows), the dev token, and one-use stream tickets for EventSource.
 */
export class TenantAccessControl {
  /** When each token's last use was written (in memory: a restart writes the next use at once). */
  private readonly touchedAt = new Map<string, number>();

  constructor(private readonly deps: TenantAccessDeps) {}

  async issueToken(scopes: OperatorScope[], label?: string): Promise<IssuedToken | null> {
    if (!this.deps.tenantStore.exists()) return null;
    const minted = await mintToken();
    this.deps.tokens.insertToken(minted.tokenId, minted.hash, scopes, label, Date.now());
    return { tokenId: minted.tokenId, token: minted.token, scopes };
  }

  tokenExists(tokenId: string): boolean {
    return this.deps.tokens.token(tokenId) !== undefined;
  }

  /** Records an SSE follow opened with `tokenId` (revoking ends it); false: the follower must close. */
  followWith(tokenId: string, key: string): boolean {
    if (this.deps.tenantStore.record()?.deletingAt !== undefined) return false;
    return this.deps.tokens.recordFollow(tokenId, key, Date.now());
  }

  /** Revokes a token; its gateway connections and SSE follows are closed before this answers. */
  async revoke(tokenId: string): Promise<boolean> {
    const revoked = this.deps.tokens.deleteToken(tokenId);
    this.touchedAt.delete(tokenId);
    if (revoked) {
      await this.retireGrants();
      await this.deps.closeConnections(tokenId);
    }
    await this.deps.endFollows(this.deps.tokens.takeFollows(tokenId));
    return revoked;
  }

  /** Revokes every token (tenant deletion). */
  async revokeAll(): Promise<void> {
    // The deletion closed every connection first (TenantDeletion): only the tokens go.
    this.deps.tokens.deleteAllTokens();
    this.touchedAt.clear();
    await this.retireGrants();
    await this.deps.endFollows(this.deps.tokens.takeFollows());
  }

  /**
   * Retires the sealed access grants of the tenant kept in this data center's cache (a token
   * revoked, the config changed); elsewhere they end within ACCESS_GRANT_TTL_MS (grant-cache.ts).
   */
  async retireGrants(): Promise<void> {
    const tenantId = this.deps.tenantStore.tenantId();
    if (tenantId) await retireSharedAccess(this.deps.env, tenantId);
  }

  forget(): void {
    this.touchedAt.clear();
    this.deps.tokens.forget();
  }

  /** Checks a token (by id and SHA-256) and returns its scopes with the tenant config. */
  authenticate(tokenId: string, hash: string): TenantAccess | null {
    const token = this.deps.tokens.token(tokenId);
    // Compare even when the id is unknown so timing does not reveal which ids exist.
    const matches = constantTimeEqual(token?.hash ?? "0".repeat(64), hash);
    if (!token || !matches) return null;
    this.touch(tokenId);
    return { scopes: token.scopes, config: this.deps.tenantStore.config() };
  }

  /** A bearer token as the gateway handshake presents it (the dev token included). */
  async authenticateBearer(token: string): Promise<{ scopes: readonly OperatorScope[]; tokenId?: string } | null> {
    const tenantId = this.deps.tenantStore.tenantId();
    if (!tenantId) return null;
    if (isDevOperatorToken(this.deps.env, tenantId, token)) return { scopes: OPERATOR_SCOPES };
    const tokenId = parseTokenId(token);
    if (!tokenId) return null;
    const access = this.authenticate(tokenId, await sha256Hex(token));
    return access && { scopes: access.scopes, tokenId };
  }

  /** Stores a stream ticket's grant under its hash; false when the tenant does not exist. */
  issueStreamTicket(hash: string, grant: StreamTicketGrant, expiresAt: number): boolean {
    if (!this.deps.tenantStore.exists()) return false;
    this.deps.tokens.insertTicket(hash, JSON.stringify(grant), expiresAt, Date.now());
    return true;
  }

  /** Redeems a ticket once (null: unknown, used, expired, or its token revoked since). */
  redeemStreamTicket(hash: string): { grant: StreamTicketGrant; config: TenantConfig } | null {
    const json = this.deps.tokens.takeTicket(hash, Date.now());
    if (!json) return null;
    const grant = JSON.parse(json) as StreamTicketGrant;
    if (grant.tokenId && !this.deps.tokens.token(grant.tokenId)) return null;
    return { grant, config: this.deps.tenantStore.config() };
  }

  /** Records a token's use, at most once per LAST_USED_RESOLUTION_MS per token. */
  private touch(tokenId: string, now = Date.now()): void {
    if (now - (this.touchedAt.get(tokenId) ?? 0) < LAST_USED_RESOLUTION_MS) return;
    this.touchedAt.set(tokenId, now);
    this.deps.tokens.touchToken(tokenId, now);
  }
}

/** Ends SSE follows in their session objects, each tried twice. */
export async function endFollowsIn(
  env: Env,
  tenantId: string | undefined,
  follows: { tokenId: string; sessionKey: string }[],
): Promise<void> {
  if (!tenantId || follows.length === 0) return;
  const end = async (follow: { tokenId: string; sessionKey: string }) =>
    sessionApi(env, tenantId, follow.sessionKey).endFollows(follow.tokenId);
  await Promise.all(
    follows.map((follow) =>
      end(follow)
        .catch(() => end(follow))
        .catch(() => 0),
    ),
  );
}
