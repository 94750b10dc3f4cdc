import type { RunTokenClaims } from "../auth/run-token";
import {
  agentIdOf,
  classifySessionKeyShape,
  DEFAULT_AGENT_ID,
  isValidAgentId,
  mainSessionKey,
  normalizeAgentId,
  parseAgentSessionKey,
  toStoreKey,
} from "../keys/session-key";
import type { TenantConfig } from "../protocol/config";
import type { OperatorScope } from "../protocol/http";
import type { SessionRef } from "../session/session-object";
import type { TenantObject } from "../tenant/tenant-object";

/** Who is calling: an operator token (scopes), or a run token acting as one session. */
export type Principal =
  | { kind: "operator"; scopes: readonly OperatorScope[]; tokenId?: string }
  | { kind: "run"; scopes: readonly OperatorScope[]; claims: RunTokenClaims };

/** Everything a domain operation needs about the calling tenant. */
export type TenantContext = {
  env: Env;
  tenantId: string;
  config: TenantConfig;
  principal: Principal;
  /** Public origin of the request (`https://host`), for callback URLs. */
  origin?: string;
  /** The tenant object itself when the caller runs inside it (the gateway): no RPC to itself. */
  localTenant?: DurableObjectStub<TenantObject>;
};

/** A domain failure the transports map to their own error shapes. */
export class DomainError extends Error {
  constructor(
    readonly code: "invalid" | "not_found" | "forbidden" | "conflict" | "too_large",
    message: string,
  ) {
    super(message);
  }
}

export const MAX_SESSION_KEY_CHARS = 512;

/** The tenant's default agent: the `default: true` entry, else the first listed, else "main". */
export function defaultAgentId(config: TenantConfig): string {
  const agents = config.agents?.list ?? [];
  const chosen = agents.find((a) => a.default) ?? agents[0];
  return chosen ? normalizeAgentId(chosen.id) : DEFAULT_AGENT_ID;
}

export function mainKeyOf(ctx: TenantContext, agentId = defaultAgentId(ctx.config)): string {
  return mainSessionKey(agentId, ctx.config.session);
}

/**
 * Canonical store key for a key as a caller wrote it (`main`, `agent:x:y`, legacy forms).
 * Throws DomainError("invalid") for keys OpenClaw would reject.
 */
export function canonicalKey(ctx: TenantContext, rawKey: string, agentId = defaultAgentId(ctx.config)): string {
  const trimmed = rawKey.trim();
  if (trimmed === "") throw new DomainError("invalid", "key required");
  if (trimmed.length > MAX_SESSION_KEY_CHARS) {
    throw new DomainError("invalid", `session key is longer than ${MAX_SESSION_KEY_CHARS} characters`);
  }
  // Control characters never belong in a key (they would also corrupt object names and logs).
  if (/[\u0000-\u001f\u007f]/.test(trimmed)) throw new DomainError("invalid", "invalid session key");
  if (classifySessionKeyShape(trimmed) === "malformed_agent") {
    throw new DomainError("invalid", `malformed session key "${trimmed}"`);
  }
  const parsed = parseAgentSessionKey(trimmed);
  if (parsed && !isValidAgentId(parsed.agentId)) {
    throw new DomainError("invalid", `invalid agent id "${parsed.agentId}" in session key`);
  }
  return toStoreKey({ agentId, requestKey: trimmed, cfg: ctx.config.session });
}

export function sessionRef(ctx: TenantContext, key: string): SessionRef {
  return { tenantId: ctx.tenantId, key, agentId: agentIdOf(key, defaultAgentId(ctx.config)) };
}

/** The Durable Object holding one session (tenant + canonical key). */
export function sessionStub(ctx: Pick<TenantContext, "env" | "tenantId">, key: string) {
  return ctx.env.SESSIONS.getByName(`${ctx.tenantId}/${key}`);
}

export function tenantStub(
  ctx: Pick<TenantContext, "env" | "tenantId" | "localTenant">,
): DurableObjectStub<TenantObject> {
  return ctx.localTenant ?? ctx.env.TENANTS.getByName(ctx.tenantId);
}

/** Operator scopes; a run token holds none (it may only call tools and its run's callbacks). */
export function hasScope(principal: Principal, scope: OperatorScope): boolean {
  if (principal.kind === "run") return false;
  if (principal.scopes.includes("operator.admin")) return true;
  if (scope === "operator.read")
    return principal.scopes.includes("operator.write") || principal.scopes.includes("operator.read");
  return principal.scopes.includes(scope);
}
