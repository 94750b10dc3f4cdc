import { HOOK_CHANNEL_NAMES } from "../../protocol/channels";
import type { HookMappingConfig, HooksConfig } from "../../protocol/config";
import { type HookTemplateContext, hasTemplateExpressions, renderOptional, renderTemplate } from "./hook-templates";

/**
 * The rules of OpenClaw's hook endpoints as pure functions (openclaw 2026.9.6 src/gateway/hooks.ts,
 * hooks-mapping.ts; texts recorded in ../shared/peer/channels/SPEC.md §2): the token, the body
 * of `/hooks/agent` and `/hooks/wake`, delivery fields, session keys, mappings.
 */

export const DEFAULT_HOOKS_PATH = "/hooks";
/** OpenClaw's body limit for hook requests (256 KiB). */
export const HOOK_MAX_BODY_BYTES = 262_144;
const MAX_IDEMPOTENCY_KEY_CHARS = 256;
/** Channels a hook may deliver to (the channel adapters this service has; `last` is listed, as OpenClaw does). */
export const HOOK_CHANNELS = HOOK_CHANNEL_NAMES;
export const HOOK_QUERY_TOKEN_TEXT =
  "Hook token must be provided via Authorization: Bearer <token> or X-OpenClaw-Token header (query parameters are not allowed).";

export type Refusal = { ok: false; error: string };
type Result<T> = { ok: true; value: T } | Refusal;

/** `hooks.path` normalised: leading slash, no trailing slash (`/hooks` by default). */
export function hooksBasePath(hooks: HooksConfig): string {
  const raw = hooks.path?.trim() || DEFAULT_HOOKS_PATH;
  const withSlash = raw.startsWith("/") ? raw : `/${raw}`;
  return withSlash.length > 1 ? withSlash.replace(/\/+$/, "") : withSlash;
}

/** The token a caller sent: a non-empty Bearer wins over `x-openclaw-token`. */
export function presentedHookToken(authorization: string | undefined, headerToken: string | undefined): string | null {
  const auth = authorization?.trim() ?? "";
  if (auth.toLowerCase().startsWith("bearer ")) {
    const token = auth.slice(7).trim();
    if (token) return token;
  }
  return headerToken?.trim() || null;
}

export function idempotencyKeyOf(
  headers: Record<string, string>,
  payload: Record<string, unknown>,
): string | undefined {
  for (const raw of [headers["idempotency-key"], headers["x-openclaw-idempotency-key"], payload.idempotencyKey]) {
    if (typeof raw !== "string") continue;
    const key = raw.trim();
    if (key && key.length <= MAX_IDEMPOTENCY_KEY_CHARS) return key;
  }
  return undefined;
}

/** Where a hook run's reply goes: nowhere, or a concrete channel and recipient. */
export type HookDelivery = { deliver: boolean; target?: { channel: string; to: string; accountId?: string } };

export type HookAgentRequest = {
  message: string;
  name: string;
  agentId?: string;
  sessionKey?: string;
  /** Where the session key came from: the caller (checked against the policy) or the config. */
  sessionKeySource: "request" | "mapping-static" | "mapping-templated";
  sessionMode: "isolated" | "persistent";
  delivery: HookDelivery;
  thinking?: string;
  timeoutSeconds?: number;
  model?: string;
  allowUnsafeExternalContent?: boolean;
};

export type HookWakeRequest = { text: string; mode: "now" | "next-heartbeat"; agentId?: string; sessionKey?: string };

function optionalString(value: unknown): string | undefined {
  return typeof value === "string" ? value.trim() || undefined : undefined;
}

function agentIdField(raw: unknown): Result<string | undefined> {
  if (raw === undefined) return { ok: true, value: undefined };
  const agentId = optionalString(raw);
  return agentId ? { ok: true, value: agentId } : { ok: false, error: "agentId must be a non-empty string" };
}

/** `deliver` / `channel` / `to` / `accountId` of an agent hook (any `deliver` but false delivers). */
export function hookDelivery(payload: Record<string, unknown>): Result<HookDelivery> {
  if (payload.deliver === false) return { ok: true, value: { deliver: false } };
  const channelError = `channel must be ${["last", ...HOOK_CHANNELS].sort().join("|")}`;
  const rawChannel = payload.channel;
  const channel = rawChannel === undefined ? "last" : optionalString(rawChannel)?.toLowerCase();
  if (!channel || (channel !== "last" && !(HOOK_CHANNELS as readonly string[]).includes(channel))) {
    return { ok: false, error: channelError };
  }
  const hasChannel = rawChannel !== undefined;
  const hasTo = payload.to !== undefined;
  const hasAccount = payload.accountId !== undefined;
  if (!hasChannel && !hasTo && !hasAccount) return { ok: true, value: { deliver: true } };
  const to = optionalString(payload.to);
  const accountId = optionalString(payload.accountId);
  if (hasTo && !to) return { ok: false, error: "to must be a non-empty string for hook delivery" };
  if (hasAccount && !accountId) return { ok: false, error: "accountId must be a non-empty string for hook delivery" };
  if (hasAccount && (!hasChannel || !to))
    return { ok: false, error: "accountId requires channel and to for hook delivery" };
  if (!hasChannel || !to) return { ok: false, error: "channel and to must be set together for hook delivery" };
  if (channel === "last") return { ok: false, error: "channel must name a concrete channel for hook delivery" };
  return { ok: true, value: { deliver: true, target: { channel, to, ...(accountId ? { accountId } : {}) } } };
}

/** The body of `POST <path>/agent`. */
export function agentHookRequest(payload: Record<string, unknown>): Result<HookAgentRequest> {
  const message = optionalString(payload.message);
  if (!message) return { ok: false, error: "message required" };
  const agentId = agentIdField(payload.agentId);
  if (!agentId.ok) return agentId;
  const mode = payload.sessionMode;
  if (mode !== undefined && mode !== "isolated" && mode !== "persistent") {
    return { ok: false, error: "sessionMode must be isolated or persistent" };
  }
  const delivery = hookDelivery(payload);
  if (!delivery.ok) return delivery;
  const model = optionalString(payload.model);
  if (payload.model !== undefined && !model) return { ok: false, error: "model required" };
  const timeout = payload.timeoutSeconds;
  return {
    ok: true,
    value: {
      message,
      name: optionalString(payload.name) ?? "Hook",
      ...(agentId.value ? { agentId: agentId.value } : {}),
      ...(optionalString(payload.sessionKey) ? { sessionKey: optionalString(payload.sessionKey) } : {}),
      sessionKeySource: "request",
      sessionMode: mode ?? "isolated",
      delivery: delivery.value,
      ...(model ? { model } : {}),
      ...(optionalString(payload.thinking) ? { thinking: optionalString(payload.thinking) } : {}),
      ...(typeof timeout === "number" && Number.isFinite(timeout) && timeout > 0
        ? { timeoutSeconds: Math.floor(timeout) }
        : {}),
    },
  };
}

/** The body of `POST <path>/wake` (an unknown `mode` is `now`, as OpenClaw treats it). */
export function wakeHookRequest(payload: Record<string, unknown>): Result<HookWakeRequest> {
  const text = optionalString(payload.text);
  if (!text) return { ok: false, error: "text required" };
  const mode = payload.mode === "next-heartbeat" ? "next-heartbeat" : "now";
  const agentId = agentIdField(payload.agentId);
  if (!agentId.ok) return agentId;
  const sessionKey = optionalString(payload.sessionKey);
  if (payload.sessionKey !== undefined && !sessionKey)
    return { ok: false, error: "sessionKey must be a non-empty string" };
  if (mode === "next-heartbeat" && sessionKey) return { ok: false, error: "sessionKey requires mode=now" };
  return {
    ok: true,
    value: { text, mode, ...(agentId.value ? { agentId: agentId.value } : {}), ...(sessionKey ? { sessionKey } : {}) },
  };
}

/** `hooks.allowedSessionKeyPrefixes`, lower-cased, blanks dropped; undefined when none. */
function allowedPrefixes(hooks: HooksConfig): string[] | undefined {
  const prefixes = [
    ...new Set((hooks.allowedSessionKeyPrefixes ?? []).map((p) => p.trim().toLowerCase()).filter(Boolean)),
  ];
  return prefixes.length > 0 ? prefixes : undefined;
}

/**
 * The session key a hook lands in, before agent-prefixing: the caller's (only with
 * `allowRequestSessionKey`, and within the prefixes), else `defaultSessionKey`, else
 * `hook:<uuid>` with the given uuid. `undefined` source means nothing was asked for.
 */
export function hookSessionKey(
  hooks: HooksConfig,
  requested: { key?: string; source: HookAgentRequest["sessionKeySource"] },
  generatedId: string,
): Result<{ key: string; generated: boolean }> {
  const prefixes = allowedPrefixes(hooks);
  const prefixError = (list: string[]) => `sessionKey must start with one of: ${list.join(", ")}`;
  const allowed = (key: string, list: string[]) => list.some((prefix) => key.toLowerCase().startsWith(prefix));
  if (requested.key) {
    if (requested.source !== "mapping-static" && hooks.allowRequestSessionKey !== true) {
      return {
        ok: false,
        error:
          "sessionKey is disabled for externally supplied hook payload values; set hooks.allowRequestSessionKey=true to enable",
      };
    }
    if (prefixes && !allowed(requested.key, prefixes)) return { ok: false, error: prefixError(prefixes) };
    return { ok: true, value: { key: requested.key, generated: false } };
  }
  const fallback = hooks.defaultSessionKey?.trim();
  if (fallback) return { ok: true, value: { key: fallback, generated: false } };
  const generated = `hook:${generatedId}`;
  if (prefixes && !allowed(generated, prefixes)) return { ok: false, error: prefixError(prefixes) };
  return { ok: true, value: { key: generated, generated: true } };
}

/** `agentId` checked against the agents and `hooks.allowedAgentIds` (`*` allows all). */
export function hookAgentId(
  hooks: HooksConfig,
  requested: string | undefined,
  known: (agentId: string) => boolean,
  defaultAgentId: string,
  normalize: (agentId: string) => string,
): Result<string> {
  let agentId = defaultAgentId;
  if (requested !== undefined) {
    const normalized = normalize(requested);
    if (!known(normalized)) return { ok: false, error: `unknown agentId "${requested}"` };
    agentId = normalized;
  }
  const allowed = hooks.allowedAgentIds?.map((id) => id.trim()).filter(Boolean);
  if (allowed && !allowed.includes("*") && !allowed.map(normalize).includes(agentId)) {
    return { ok: false, error: "agentId is not allowed by hooks.allowedAgentIds" };
  }
  return { ok: true, value: agentId };
}

/** The mapping a sub-path selects (first match wins; `match.source` compares the body's `source`). */
export function findMapping(hooks: HooksConfig, subPath: string, payload: Record<string, unknown>) {
  const path = subPath.replace(/^\/+/, "").replace(/\/+$/, "");
  return (hooks.mappings ?? []).find((mapping) => {
    const matchPath = mapping.match?.path?.trim().replace(/^\/+/, "").replace(/\/+$/, "");
    if (matchPath && matchPath !== path) return false;
    const source = mapping.match?.source?.trim();
    return !source || payload.source === source;
  });
}

export type MappedAction = { kind: "agent"; request: HookAgentRequest } | { kind: "wake"; request: HookWakeRequest };

/** A mapping applied to one request: its templates rendered into an agent or wake action. */
export function applyMapping(mapping: HookMappingConfig, ctx: HookTemplateContext): Result<MappedAction> {
  const sessionKey = renderOptional(mapping.sessionKey, ctx);
  const templated = mapping.sessionKey !== undefined && hasTemplateExpressions(mapping.sessionKey);
  if (templated && !sessionKey) return { ok: false, error: "hook mapping sessionKey template rendered empty" };
  const agentId = mapping.agentId?.trim() || undefined;
  if ((mapping.action ?? "agent") === "wake") {
    const text = renderTemplate(mapping.textTemplate, ctx).trim();
    const mode = mapping.wakeMode ?? "now";
    if (!text) return { ok: false, error: "hook mapping requires text" };
    if (mode === "next-heartbeat" && sessionKey)
      return { ok: false, error: "hook mapping sessionKey requires wakeMode=now" };
    return {
      ok: true,
      value: {
        kind: "wake",
        request: { text, mode, ...(agentId ? { agentId } : {}), ...(sessionKey ? { sessionKey } : {}) },
      },
    };
  }
  const message = renderTemplate(mapping.messageTemplate, ctx).trim();
  if (!message) return { ok: false, error: "hook mapping requires message" };
  const to = renderOptional(mapping.to, ctx);
  // A mapping's destination is the operator's own config: an empty `to` is not a caller error
  // (OpenClaw answers 200 and fails the delivery later); here the reply then goes nowhere.
  const delivery: HookDelivery =
    mapping.deliver === false || !mapping.channel || !to || mapping.channel === "last"
      ? { deliver: mapping.deliver !== false }
      : { deliver: true, target: { channel: mapping.channel, to } };
  const model = renderOptional(mapping.model, ctx);
  const thinking = renderOptional(mapping.thinking, ctx);
  return {
    ok: true,
    value: {
      kind: "agent",
      request: {
        message,
        name: renderOptional(mapping.name, ctx) ?? "Hook",
        ...(agentId ? { agentId } : {}),
        ...(sessionKey ? { sessionKey } : {}),
        sessionKeySource: templated ? "mapping-templated" : "mapping-static",
        sessionMode: mapping.sessionMode ?? "isolated",
        delivery,
        ...(model ? { model } : {}),
        ...(thinking ? { thinking } : {}),
        ...(mapping.timeoutSeconds ? { timeoutSeconds: mapping.timeoutSeconds } : {}),
        ...(mapping.allowUnsafeExternalContent !== undefined
          ? { allowUnsafeExternalContent: mapping.allowUnsafeExternalContent }
          : {}),
      },
    },
  };
}
