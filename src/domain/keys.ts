import type { SessionRef } from "../contracts/session-api";
import {
  agentIdOf,
  BIDI_CONTROL_RE,
  classifySessionKeyShape,
  isRefusedAgentId,
  isValidAgentId,
  mainSessionKey,
  normalizeAgentId,
  parseAgentSessionKey,
  toStoreKey,
} from "../keys/session-key";
import { defaultAgentId } from "../policy/agent-config";
import type { TenantContext } from "./context";
import { DomainError } from "./errors";

/** Session keys as a tenant's callers write them, turned into canonical store keys. */

export const MAX_SESSION_KEY_CHARS = 512;

export function mainKeyOf(ctx: Pick<TenantContext, "config">, agentId = defaultAgentId(ctx.config)): string {
  return mainSessionKey(agentId, ctx.config.session);
}

/**
 * Canonical store key for a key as a caller wrote it (`main`, `agent:x:y`, legacy forms).
 * Throws DomainError("invalid") for keys OpenClaw would reject.
 */
export function canonicalKey(
  ctx: Pick<TenantContext, "config">,
  rawKey: string,
  agentId = defaultAgentId(ctx.config),
): string {
  const trimmed = rawKey.trim();
  if (trimmed === "") throw new DomainError("invalid", "key required");
  if (trimmed.length > MAX_SESSION_KEY_CHARS) {
    throw new DomainError("invalid", `session key is longer than ${MAX_SESSION_KEY_CHARS} characters`);
  }
  // Control characters never belong in a key (they would also corrupt object names and logs).
  if (/[\u0000-\u001f\u007f]/.test(trimmed)) throw new DomainError("invalid", "invalid session key");
  if (BIDI_CONTROL_RE.test(trimmed)) {
    throw new DomainError("invalid", "invalid session key: bidirectional control characters are not allowed");
  }
  if (classifySessionKeyShape(trimmed) === "malformed_agent") {
    throw new DomainError("invalid", `malformed session key "${trimmed}"`);
  }
  const parsed = parseAgentSessionKey(trimmed);
  if (parsed && (!isValidAgentId(parsed.agentId) || isRefusedAgentId(parsed.agentId))) {
    throw new DomainError("invalid", `invalid agent id "${parsed.agentId}" in session key`);
  }
  return toStoreKey({ agentId, requestKey: trimmed, cfg: ctx.config.session });
}

/**
 * An agent id a caller passed (a param, a tool argument, a header): refused when path-like or a
 * prototype name, else normalized as OpenClaw does (`Ops Agent` → `ops-agent`).
 */
export function agentIdParam(raw: string): string {
  if (isRefusedAgentId(raw)) throw new DomainError("invalid", `invalid agent id "${raw.trim()}"`);
  return normalizeAgentId(raw);
}

export function sessionRef(ctx: Pick<TenantContext, "tenantId" | "config">, key: string): SessionRef {
  return { tenantId: ctx.tenantId, key, agentId: agentIdOf(key, defaultAgentId(ctx.config)) };
}
