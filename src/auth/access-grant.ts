import type { Access } from "./principal";
import { openSealedJson, sealJson } from "./sealed-json";
import { signJson, verifySignedJson } from "./signed-json";

/**
 * Access grants: what the tenant object answered for one token (its scopes and the tenant's
 * config), sealed with the deployment secret AUTH_GRANT_SECRET (AES-256-GCM: the config's secrets
 * stay unreadable, and no grant can be forged) so that it can be kept outside the isolate (the
 * data center's cache, grant-cache.ts) and served without asking the tenant again.
 * A grant is bound to its tenant and to the token's SHA-256, lives ACCESS_GRANT_TTL_MS, and is
 * refused once the tenant's revocation epoch (the time of its last revoke or config change) is
 * not older than the grant: that is the bound on revocation everywhere (docs/security.md).
 */
export const ACCESS_GRANT_TTL_MS = 30_000;

export type AccessGrant = {
  tenantId: string;
  /** SHA-256 (hex) of the bearer token the grant answers for. */
  tokenHash: string;
  access: Access;
  /** When the round trip that produced it started (ms): a revoke after that retires it. */
  issuedAt: number;
  expiresAt: number;
};

/** A revocation epoch (signed: it holds nothing secret): grants of `tenantId` issued at or before `epoch` (ms) are retired. */
export type RevocationEpoch = { tenantId: string; epoch: number };

export function accessGrant(tenantId: string, tokenHash: string, access: Access, issuedAt: number): AccessGrant {
  return { tenantId, tokenHash, access, issuedAt, expiresAt: issuedAt + ACCESS_GRANT_TTL_MS };
}

/** A grant opens only for its tenant and token. */
const grantContext = (tenantId: string, tokenHash: string) => `access-grant\n${tenantId}\n${tokenHash}`;

export const sealAccessGrant = (secret: string, grant: AccessGrant): Promise<string> =>
  sealJson(secret, grantContext(grant.tenantId, grant.tokenHash), grant);
export const signRevocationEpoch = (secret: string, epoch: RevocationEpoch): Promise<string> => signJson(secret, epoch);

/**
 * The access a sealed grant carries (and its expiry), or null: forged, for another tenant or token, expired, or
 * issued at or before the tenant's revocation epoch (`epoch`, null when none is known).
 */
export async function openAccessGrant(
  secret: string,
  text: string,
  expected: { tenantId: string; tokenHash: string; epoch: number | null; now: number },
): Promise<Pick<AccessGrant, "access" | "expiresAt"> | null> {
  const context = grantContext(expected.tenantId, expected.tokenHash);
  const grant = (await openSealedJson(secret, context, text)) as Partial<AccessGrant> | null;
  if (!grant || typeof grant !== "object") return null;
  if (grant.tenantId !== expected.tenantId || grant.tokenHash !== expected.tokenHash) return null;
  if (typeof grant.expiresAt !== "number" || grant.expiresAt <= expected.now) return null;
  if (typeof grant.issuedAt !== "number" || grant.issuedAt > expected.now) return null;
  if (expected.epoch !== null && grant.issuedAt <= expected.epoch) return null;
  return grant.access?.principal?.kind === "operator" ? { access: grant.access, expiresAt: grant.expiresAt } : null;
}

/** The epoch a signed marker carries for `tenantId`, or null (none, forged, another tenant's). */
export async function verifyRevocationEpoch(
  secret: string,
  text: string | null,
  tenantId: string,
): Promise<number | null> {
  if (text === null) return null;
  const marker = (await verifySignedJson(secret, text)) as Partial<RevocationEpoch> | null;
  if (!marker || typeof marker !== "object" || marker.tenantId !== tenantId) return null;
  return typeof marker.epoch === "number" ? marker.epoch : null;
}
