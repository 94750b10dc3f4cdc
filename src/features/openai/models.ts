import { isValidAgentId, normalizeAgentId } from "../../keys/session-key";
import { defaultAgentId, isKnownAgent } from "../../policy/agent-config";
import type { TenantConfig } from "../../protocol/config";
import { invalidRequest, OpenAiError } from "./errors";

/**
 * OpenClaw's `model` strings on the OpenAI routes: they name an agent of the tenant, never a
 * provider model. `openclaw` and `openclaw/default` are the default agent; `openclaw/<id>`,
 * `openclaw:<id>` and `agent:<id>` name one.
 */

export const INVALID_MODEL_MESSAGE = "Invalid `model`. Use `openclaw` or `openclaw/<agentId>`.";
const AGENT_TARGET = /^(?:openclaw\/|openclaw:|agent:)([a-z0-9][a-z0-9_-]{0,63})$/i;

export type ModelTarget = { kind: "default" } | { kind: "agent"; agentId: string };

/** What a `model` string names, or null when it is not OpenClaw syntax. Empty or absent = default. */
export function parseModelTarget(model: string | undefined | null): ModelTarget | null {
  if (model === undefined || model === null || model === "") return { kind: "default" };
  const lowered = model.toLowerCase();
  if (lowered === "openclaw" || lowered === "openclaw/default") return { kind: "default" };
  const match = AGENT_TARGET.exec(model);
  return match?.[1] ? { kind: "agent", agentId: match[1].toLowerCase() } : null;
}

export const unknownAgent = (id: string) => invalidRequest(`Unknown agent '${id}'.`);

/**
 * The agent a request runs with. The model string is checked first (a valid agent header
 * cannot rescue a bad one); `x-openclaw-agent-id` then overrides the agent it names.
 */
export function resolveAgent(config: TenantConfig, model: string | undefined | null, agentHeader?: string): string {
  const target = parseModelTarget(model);
  if (!target) throw invalidRequest(INVALID_MODEL_MESSAGE);
  const header = agentHeader?.trim();
  if (header) {
    if (!isValidAgentId(header)) throw unknownAgent(header);
    const agentId = normalizeAgentId(header);
    if (!isKnownAgent(config, agentId)) throw unknownAgent(header);
    return agentId;
  }
  if (target.kind === "default") return defaultAgentId(config);
  if (!isKnownAgent(config, target.agentId)) throw unknownAgent(target.agentId);
  return target.agentId;
}

/** The listed ids, in order, without duplicates: the two default aliases, then every agent (default first). */
export function modelIds(config: TenantConfig): string[] {
  const agents = [defaultAgentId(config), ...(config.agents?.list ?? []).map((agent) => normalizeAgentId(agent.id))];
  return [...new Set(["openclaw", "openclaw/default", ...agents.map((id) => `openclaw/${id}`)])];
}

export type ModelObject = { id: string; object: "model"; created: 0; owned_by: "openclaw"; permission: [] };

export function modelObject(id: string): ModelObject {
  return { id, object: "model", created: 0, owned_by: "openclaw", permission: [] };
}

export function modelList(config: TenantConfig): { object: "list"; data: ModelObject[] } {
  return { object: "list", data: modelIds(config).map(modelObject) };
}

/**
 * `GET /v1/models/{id}`: `rawId` is the path after `/v1/models/` (encoded or not). Only the
 * listed ids match, exactly: the aliases chat accepts (`openclaw:main`, `OPENCLAW`) are 404.
 */
export function retrieveModel(config: TenantConfig, rawId: string): ModelObject {
  if (rawId === "") throw invalidRequest("Missing model id.");
  let id: string;
  try {
    id = decodeURIComponent(rawId);
  } catch {
    throw invalidRequest("Invalid model id encoding.");
  }
  if (id === "") throw invalidRequest("Missing model id.");
  if (!parseModelTarget(id)) throw invalidRequest("Invalid model id.");
  if (!modelIds(config).includes(id)) {
    throw new OpenAiError(404, "invalid_request_error", `Model '${id}' not found.`);
  }
  return modelObject(id);
}
