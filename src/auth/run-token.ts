import { signJson, verifySignedJson } from "./signed-json";

/**
 * Run tokens: minted when a run is dispatched to a runner, bound to (tenant, agent, session,
 * run, sandboxed, spawn depth), short-lived and stateless: `ocr_<payload>.<hmac>`, signed
 * with the deployment secret RUN_TOKEN_SECRET. Tool calls made with one act as that session.
 */

export type RunTokenClaims = {
  tenantId: string;
  agentId: string;
  sessionKey: string;
  runId: string;
  sandboxed: boolean;
  spawnDepth: number;
  /** Session tools allowed (sub-agents get none by default). */
  sessionTools: boolean;
  exp: number;
};

const PREFIX = "ocr_";

export async function mintRunToken(secret: string, claims: RunTokenClaims): Promise<string> {
  return `${PREFIX}${await signJson(secret, claims)}`;
}

export function isRunToken(token: string): boolean {
  return token.startsWith(PREFIX);
}

/**
 * The claims of a valid, unexpired token, else null. Only the one encoding the service mints
 * is accepted: exactly `ocr_<payload>.<signature>`, both unpadded canonical base64url (a token
 * with anything appended, padded or re-encoded is refused).
 */
export async function verifyRunToken(secret: string, token: string, now = Date.now()): Promise<RunTokenClaims | null> {
  if (!isRunToken(token)) return null;
  const claims = (await verifySignedJson(secret, token.slice(PREFIX.length))) as RunTokenClaims | null;
  return claims && typeof claims.exp === "number" && claims.exp > now ? claims : null;
}
