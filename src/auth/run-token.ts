import type { RunRecord } from "../model/run-types";
import { sessionToolsAllowed } from "../policy/subagent-tools";
import type { SessionEntry } from "../protocol/session";
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
  /** The sessions_send hops that led to the run (src/policy/flow-steps.ts bounds them). */
  a2aDepth?: number;
  /** Session tools allowed (sub-agents get none by default). */
  sessionTools: boolean;
  exp: number;
};

/**
 * A run's claims, as its run token carries them and as its own tool calls act: the run's
 * session, sandboxed when the run started so or the session is recorded so, with the
 * session's spawn depth and whether it may use session tools.
 */
export function runClaims(
  run: Pick<RunRecord, "runId" | "sessionKey" | "input">,
  entry: Pick<SessionEntry, "sandboxed" | "spawnDepth" | "subagentRole"> | null | undefined,
  exp: number,
): RunTokenClaims {
  return {
    tenantId: run.input.tenantId,
    agentId: run.input.agentId,
    sessionKey: run.sessionKey,
    runId: run.runId,
    sandboxed: run.input.sandboxed === true || entry?.sandboxed === true,
    spawnDepth: entry?.spawnDepth ?? 0,
    ...(run.input.a2aDepth ? { a2aDepth: run.input.a2aDepth } : {}),
    sessionTools: sessionToolsAllowed(entry ?? undefined),
    exp,
  };
}

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
