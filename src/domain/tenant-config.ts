import { z } from "zod";
import { normalizeAgentId } from "../keys/session-key";
import { configHash } from "../model/config-hash";
import { absentFeatureDeletion, withAbsentFeaturesOff, withoutAbsentFeatures } from "../policy/absent-config-features";
import { defaultAgentId } from "../policy/agent-config";
import { configBoundsProblem, rawConfigTooLarge } from "../policy/config-bounds";
import { type AgentConfig, type TenantConfig, tenantConfigSchema } from "../protocol/config";
import { SERVER_VERSION } from "../protocol/server-version";
import { redactConfig, restoreRedacted } from "../render/config-redaction";
import type { TenantContext } from "./context";
import { DomainError } from "./errors";
import { agentIdParam } from "./keys";
import { CONFIG_CHANGED_MESSAGE, writeTenantConfig } from "./tenant-admin";

/**
 * The tenant's configuration as OpenClaw's `config.*` and `agents.*` methods serve it to the
 * Control UI: read with a `hash`, replaced (`config.set`) or merged (`config.patch`) over that
 * hash, through the same validation as `PUT /v1/config`; agents created, updated and deleted in
 * `agents.list`. Secrets are only referenced, but URLs may carry credentials: those are answered
 * redacted and restored on write (render/config-redaction.ts).
 */

/** Where the config lives, in `config.get`'s `path`. */
const configPath = (ctx: TenantContext<never>) => `tenant:${ctx.tenantId}`;

export async function getConfig(ctx: TenantContext<never>) {
  const config = ctx.config;
  // Credentials inside URLs are answered as OpenClaw's sentinel, the switches of features this
  // service does not have as off; the hash stays the stored config's.
  const shown = withAbsentFeaturesOff(redactConfig(config));
  return {
    path: configPath(ctx),
    exists: true,
    valid: true,
    issues: [],
    warnings: [],
    raw: JSON.stringify(shown, null, 2),
    parsed: shown,
    sourceConfig: shown,
    config: shown,
    resolved: shown,
    hash: await configHash(config),
  };
}

/**
 * A config a client sent back after reading it redacted: each sentinel it still carries takes
 * the stored value (OpenClaw's restore on `config.set` / `config.patch` / `config.apply`).
 */
export function withStoredCredentials(ctx: Pick<TenantContext, "config">, candidate: unknown): unknown {
  const restored = restoreRedacted(candidate, ctx.config);
  if (!restored.ok) throw new DomainError("invalid", restored.message);
  return restored.value;
}

/** The JSON Schema of what this service validates (generated from the zod schema). */
export function configSchema() {
  return {
    schema: z.toJSONSchema(tenantConfigSchema, { unrepresentable: "any" }),
    uiHints: {},
    version: SERVER_VERSION,
    generatedAt: new Date(0).toISOString(),
  };
}

/** `config.schema.lookup {path}`: the schema of one dotted path of the config, or OpenClaw's not-found. */
export function lookupConfigSchema(path: string) {
  let node: unknown = configSchema().schema;
  for (const segment of path.split(".").filter(Boolean)) {
    const properties = (node as { properties?: Record<string, unknown> } | undefined)?.properties;
    node = properties && Object.hasOwn(properties, segment) ? properties[segment] : undefined;
    if (node === undefined) throw new DomainError("invalid", "config schema path not found");
  }
  return { path, schema: node, reloadKind: "hot", hint: {} };
}

type WriteParams = { raw?: unknown; baseHash?: unknown; replacePaths?: unknown };

/** `config.set {raw, baseHash}`: the whole config replaced. */
export async function setConfig(ctx: TenantContext<"config" | "secrets">, params: WriteParams) {
  const next = withStoredCredentials(ctx, parseRaw("config.set", params.raw));
  return save(ctx, validated(next), baseHashOf(params));
}

/** `config.patch {raw, baseHash, replacePaths?}`: a JSON merge patch (lists of objects merged by `id`). */
export async function patchConfig(ctx: TenantContext<"config" | "secrets">, params: WriteParams) {
  const patch = parseRaw("config.patch", params.raw);
  if (!isObject(patch)) throw new DomainError("invalid", "config.patch raw must be an object");
  const replacePaths = Array.isArray(params.replacePaths) ? params.replacePaths.map(String) : [];
  return mergeConfig(ctx, patch, { baseHash: baseHashOf(params), replacePaths });
}

/**
 * Merges a JSON merge patch into the stored config, as `config.patch` merges (the one merge behind
 * `config.patch` and `PATCH /v1/config`). With a `baseHash` (the gateway's) the patch applies only
 * onto the config the caller loaded (OpenClaw's refusal otherwise); without one (HTTP) onto the
 * config as it is now, and a write that raced it is a conflict, never a lost update.
 */
export async function mergeConfig(
  ctx: TenantContext<"config" | "secrets">,
  patch: Record<string, unknown>,
  options: { baseHash?: string; replacePaths?: readonly string[] },
) {
  const deletion = absentFeatureDeletion(patch);
  if (deletion) throw new DomainError("invalid", `invalid config: ${deletion.path}: ${deletion.refusal}`);
  const current = ctx.config;
  const currentHash = await configHash(current);
  if (options.baseHash !== undefined && currentHash !== options.baseHash) {
    throw new DomainError("invalid", CONFIG_CHANGED_MESSAGE);
  }
  const replace = new Set(options.replacePaths ?? []);
  const merged = withStoredCredentials(ctx, mergePatch(current, patch, "", replace));
  // Switching an absent feature off again (the only value accepted) changes nothing stored.
  const next = withoutAbsentFeatures(validated(merged));
  const changedPaths = diffPaths(current, next);
  if (changedPaths.length === 0) {
    return { ok: true, noop: true, changedPaths, path: configPath(ctx), config: redactConfig(current) };
  }
  const staleAs = options.baseHash === undefined ? "conflict" : "invalid";
  return { ...(await save(ctx, next, currentHash, staleAs)), changedPaths };
}

export type AgentFields = {
  name?: string | undefined;
  model?: string | null | undefined;
  emoji?: string | undefined;
  avatar?: string | undefined;
};

/** `agents.create {name, …}`: a new entry in `agents.list`, its id derived from the name. */
export async function createAgent(ctx: TenantContext<"config" | "secrets">, fields: AgentFields & { name: string }) {
  const config = ctx.config;
  const agentId = normalizeAgentId(fields.name);
  const agents = listedAgents(config);
  if (agents.some((agent) => agent.id === agentId)) {
    throw new DomainError("invalid", `agent "${agentId}" already exists`);
  }
  const agent: AgentConfig = { id: agentId, ...agentFields(fields) };
  await saveAgents(ctx, config, [...agents, agent]);
  return { ok: true, agentId, name: fields.name.trim(), workspace: "", ...(agent.model ? { model: agent.model } : {}) };
}

/** `agents.update {agentId, name?, model?, …}`: `model: null` clears the agent's model. */
export async function updateAgent(ctx: TenantContext<"config" | "secrets">, agentId: string, fields: AgentFields) {
  const config = ctx.config;
  const id = agentIdParam(agentId);
  const agents = listedAgents(config);
  const index = agents.findIndex((agent) => agent.id === id);
  if (index < 0) throw new DomainError("invalid", `agent "${agentId}" not found`);
  const { model: _model, ...kept } = agents[index]!;
  const updated: AgentConfig = {
    ...(fields.model === null ? kept : agents[index]!),
    ...agentFields(fields),
  };
  await saveAgents(ctx, config, agents.with(index, updated));
  return { ok: true, agentId: id };
}

/** `agents.delete {agentId}`: the only agent cannot go (its sessions stay, as with OpenClaw's config). */
export async function deleteAgent(ctx: TenantContext<"config" | "secrets">, agentId: string) {
  const config = ctx.config;
  const id = agentIdParam(agentId);
  const agents = listedAgents(config);
  if (!agents.some((agent) => agent.id === id)) throw new DomainError("invalid", `agent "${agentId}" not found`);
  if (agents.length === 1) {
    throw new DomainError("invalid", `Agent "${id}" is the only configured agent and cannot be deleted.`);
  }
  await saveAgents(
    ctx,
    config,
    agents.filter((agent) => agent.id !== id),
  );
  return { ok: true, agentId: id, removedBindings: 0 };
}

// ── helpers ─────────────────────────────────────────────────────────────

/** The `raw` JSON of a write, bounded in size before parsing and in depth before any merge. */
function parseRaw(method: string, raw: unknown): unknown {
  if (typeof raw !== "string") throw new DomainError("invalid", `invalid ${method} params: raw (string) required`);
  const tooLarge = rawConfigTooLarge(raw);
  if (tooLarge) throw new DomainError("invalid", `invalid ${method} params: ${tooLarge}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    throw new DomainError("invalid", (error as Error).message);
  }
  const problem = configBoundsProblem(parsed, raw);
  if (problem) throw new DomainError("invalid", `invalid ${method} params: ${problem}`);
  return parsed;
}

function baseHashOf(params: WriteParams): string {
  const hash = typeof params.baseHash === "string" ? params.baseHash.trim() : "";
  if (!hash) throw new DomainError("invalid", "config base hash required; re-run config.get and retry");
  return hash;
}

function validated(candidate: unknown): TenantConfig {
  const parsed = tenantConfigSchema.safeParse(candidate);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const where = issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
  throw new DomainError("invalid", `invalid config: ${where}${issue.message}`);
}

async function save(
  ctx: TenantContext<"config" | "secrets">,
  next: TenantConfig,
  baseHash: string | undefined,
  staleAs: "invalid" | "conflict" = "invalid",
) {
  const written = await writeTenantConfig(ctx, next, baseHash);
  if (!written.ok) throw new DomainError(staleAs, CONFIG_CHANGED_MESSAGE);
  return { ok: true, path: configPath(ctx), hash: written.hash, config: redactConfig(written.config) };
}

/** The configured agents; with none listed, the implicit default agent becomes the first entry. */
function listedAgents(config: TenantConfig): AgentConfig[] {
  const listed = config.agents?.list ?? [];
  return listed.length > 0 ? [...listed] : [{ id: defaultAgentId(config), default: true }];
}

function agentFields(fields: AgentFields): Partial<AgentConfig> {
  return {
    ...(fields.name?.trim() ? { name: fields.name.trim() } : {}),
    ...(typeof fields.model === "string" && fields.model.trim() ? { model: fields.model.trim() } : {}),
    ...(fields.emoji?.trim() ? { emoji: fields.emoji.trim() } : {}),
    ...(fields.avatar?.trim() ? { avatar: fields.avatar.trim() } : {}),
  };
}

/** Writes the agents over the config they were read from (refused when it changed meanwhile). */
async function saveAgents(
  ctx: TenantContext<"config" | "secrets">,
  config: Readonly<TenantConfig>,
  list: AgentConfig[],
) {
  await save(ctx, validated({ ...config, agents: { ...config.agents, list } }), await configHash(config));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * RFC 7396 merge patch as OpenClaw applies it: `null` deletes, objects merge, arrays of objects
 * with `id` merge entry by entry (unless their path is in `replacePaths`), other arrays replace.
 */
export function mergePatch(base: unknown, patch: unknown, path: string, replacePaths: ReadonlySet<string>): unknown {
  if (Array.isArray(patch)) {
    if (!Array.isArray(base) || replacePaths.has(path) || !patch.every((item) => isObject(item) && "id" in item)) {
      return patch;
    }
    const merged = [...base];
    for (const item of patch as Record<string, unknown>[]) {
      const at = merged.findIndex((entry) => isObject(entry) && entry.id === item.id);
      if (at < 0) merged.push(item);
      else merged[at] = mergePatch(merged[at], item, `${path}[${String(item.id)}]`, replacePaths);
    }
    return merged;
  }
  if (!isObject(patch)) return patch;
  const result: Record<string, unknown> = isObject(base) ? { ...base } : {};
  for (const [key, value] of Object.entries(patch)) {
    const childPath = path ? `${path}.${key}` : key;
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value, childPath, replacePaths);
  }
  return result;
}

/** Leaf paths whose values differ between two configs. */
function diffPaths(before: unknown, after: unknown, path = ""): string[] {
  if (isObject(before) || isObject(after)) {
    const a = isObject(before) ? before : {};
    const b = isObject(after) ? after : {};
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    return keys.flatMap((key) => diffPaths(a[key], b[key], path ? `${path}.${key}` : key));
  }
  return JSON.stringify(before) === JSON.stringify(after) ? [] : [path || "<root>"];
}
