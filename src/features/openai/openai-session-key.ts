import { canonicalKey } from "../../domain/keys";
import { isValidAgentId, parseAgentSessionKey } from "../../keys/session-key";
import { isKnownAgent } from "../../policy/agent-config";
import type { TenantConfig } from "../../protocol/config";
import { invalidRequest } from "./errors";
import { unknownAgent } from "./models";

/** The header an OpenAI client names its session with (openclaw-mcp and others send it). */
export const SESSION_KEY_HEADER = "x-openclaw-session-key";
export const RESERVED_SESSION_KEY_MESSAGE = "`x-openclaw-session-key` cannot use reserved internal session namespaces.";

/** `openai` on /v1/chat/completions, `openresponses` on /v1/responses: the two never share a session. */
export type KeySurface = "openai" | "openresponses";

const RESERVED_PREFIXES = ["subagent:", "cron:", "acp:"];

/** Namespaces the runtime owns (sub-agents, cron jobs, ACP), bare or agent-scoped. */
export function isReservedSessionKey(key: string): boolean {
  const lowered = key.trim().toLowerCase();
  const rest = parseAgentSessionKey(lowered)?.rest ?? lowered;
  return RESERVED_PREFIXES.some((prefix) => lowered.startsWith(prefix) || rest.startsWith(prefix));
}

/**
 * OpenClaw's session key for an OpenAI request, in order: the `x-openclaw-session-key`
 * header (canonical form; a bare key takes the tenant's default agent, not the requested
 * one), then `user` (`agent:<agent>:<surface>-user:<user lowercased>`), else a new session
 * per request (`agent:<agent>:<surface>:<uuid>`).
 */
export function openAiSessionKey(input: {
  config: TenantConfig;
  agentId: string;
  surface: KeySurface;
  header?: string | undefined;
  user?: string | undefined;
}): string {
  const { config, agentId, surface } = input;
  const header = input.header?.trim();
  if (header) {
    if (isReservedSessionKey(header)) throw invalidRequest(RESERVED_SESSION_KEY_MESSAGE);
    const key = canonicalKey({ config }, header);
    // OpenClaw creates a session for an unknown agent and then fails its run (500); refused here.
    const keyAgent = parseAgentSessionKey(key)?.agentId;
    if (keyAgent !== undefined && (!isValidAgentId(keyAgent) || !isKnownAgent(config, keyAgent))) {
      throw unknownAgent(keyAgent);
    }
    return key;
  }
  const user = input.user?.trim();
  if (user) return canonicalKey({ config }, `agent:${agentId}:${surface}-user:${user.toLowerCase()}`, agentId);
  return `agent:${agentId}:${surface}:${crypto.randomUUID()}`;
}

/**
 * The keys the naming rules above derive for an agent on a surface, as key prefixes (recorded
 * keys are canonical): a `previous_response_id` continues such a session only, and only without
 * a header (OpenClaw binds the stored response to the header it was made with).
 */
export function derivedKeyPrefixes(agentId: string, surface: KeySurface): string[] {
  return [`agent:${agentId}:${surface}-user:`, `agent:${agentId}:${surface}:`];
}
