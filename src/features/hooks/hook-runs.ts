import { deliveryTargetOf } from "../../delivery/delivery-target";
import type { TenantContext } from "../../domain/context";
import { refusalsRestored } from "../../domain/errors";
import { canonicalKey, mainKeyOf, sessionRef } from "../../domain/keys";
import { startRun } from "../../domain/runs";
import { normalizeAgentId, parseAgentSessionKey } from "../../keys/session-key";
import type { DeliveryTarget } from "../../model/delivery";
import type { RunSnapshot } from "../../model/run-types";
import { defaultAgentId, isKnownAgent } from "../../policy/agent-config";
import type { HooksConfig } from "../../protocol/config";
import type { InputProvenance, SessionEntry } from "../../protocol/session";
import { terminalReply } from "../../runs/run-payloads";
import { dropUndefined } from "../../util/encoding";
import { hookDeliveryKey } from "./hook-delivery";
import { hookPrompt, systemEventLine } from "./hook-prompt";
import { type HookAgentRequest, type HookWakeRequest, hookAgentId, hookSessionKey } from "./hook-request";

/**
 * What a hook starts: `/hooks/agent` and agent mappings start a run (through `startRun`, the
 * one door every run goes through) in `hook:<uuid>` or the caller's allowed key;
 * `/hooks/wake` and wake mappings give the main session a system event. Idempotency is
 * derived, not remembered: the same key and the same request always name the same run id and
 * session, and the run index (durable, tenant-wide) answers a repeat from the run it started.
 */

/** A hook's answer: status and OpenClaw's JSON body. */
export type HookAnswer = { status: number; body: Record<string, unknown> };

/** How long `waitForCompletion` waits at most (the run goes on after it). */
const HOOK_WAIT_MAX_MS = 300_000;
/** After a reply, how long `waitForCompletion` waits for its channel delivery to be sent. */
const DELIVERY_WAIT_MS = 5_000;
const DELIVERY_POLL_MS = 100;
/** Enough of the transcript's last message to compare a queued wake with. */
const WAKE_TAIL_MAX_BYTES = 65_536;

const refuse = (error: string, extra: Record<string, unknown> = {}): HookAnswer => ({
  status: 400,
  body: { ok: false, error, ...extra },
});

const HOOK_PROVENANCE: InputProvenance = { kind: "external_user", sourceChannel: "webhook", sourceTool: "hooks" };

/**
 * The run id and session uuid of a request: derived from its tenant, idempotency key and body,
 * else random. The tenant is part of it, so two tenants sending the same key and body never
 * share a run id (issue 44, finding 5).
 */
export async function hookIds(
  tenantId: string,
  idempotencyKey: string | undefined,
  identity: unknown,
): Promise<{ runId: string; sessionId: string }> {
  if (!idempotencyKey) return { runId: crypto.randomUUID(), sessionId: crypto.randomUUID() };
  const seed = `${tenantId}\n${idempotencyKey}\n${JSON.stringify(identity)}`;
  const bytes = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(seed)));
  return { runId: uuidOf(bytes.subarray(0, 16)), sessionId: uuidOf(bytes.subarray(16, 32)) };
}

/** A version-4-shaped UUID from 16 bytes. */
function uuidOf(bytes: Uint8Array): string {
  const b = Uint8Array.from(bytes);
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function agentOf(ctx: TenantContext, hooks: HooksConfig, requested: string | undefined) {
  return hookAgentId(
    hooks,
    requested,
    (id) => isKnownAgent(ctx.config, id),
    defaultAgentId(ctx.config),
    normalizeAgentId,
  );
}

/** A caller's `agent:<x>:…` key is re-scoped to the hook's agent; other keys are agent-prefixed. */
function storeKey(ctx: TenantContext, key: string, agentId: string): string {
  const parsed = parseAgentSessionKey(key);
  return canonicalKey(ctx, parsed ? `agent:${agentId}:${parsed.rest}` : key, agentId);
}

/** `POST <path>/agent` and agent mappings. */
export async function agentHook(
  ctx: TenantContext,
  hooks: HooksConfig,
  request: HookAgentRequest,
  options: {
    idempotencyKey?: string | undefined;
    waitForCompletion?: boolean;
    /** `agent` or the mapping's id: the same key on two routes names two runs. */
    route: string;
    now?: Date;
  },
): Promise<HookAnswer> {
  if (request.sessionMode === "persistent" && !request.sessionKey) {
    return refuse("sessionKey is required when sessionMode is persistent");
  }
  const agent = agentOf(ctx, hooks, request.agentId);
  if (!agent.ok) return refuse(agent.error);
  const target = request.delivery.target;
  // Only the default account of a channel exists here (OpenClaw answers this with a run id too).
  if (target?.accountId && target.accountId !== "default") {
    return refuse(`Unknown account "${target.accountId}" for channel ${target.channel}.`, {
      runId: crypto.randomUUID(),
    });
  }
  const ids = await hookIds(ctx.tenantId, options.idempotencyKey, {
    route: options.route,
    agentId: agent.value,
    ...request,
  });
  const session = hookSessionKey(hooks, { key: request.sessionKey, source: request.sessionKeySource }, ids.sessionId);
  if (!session.ok) return refuse(session.error);
  const key = storeKey(ctx, session.value.key, agent.value);
  const at = options.now ?? new Date();
  const message = request.allowUnsafeExternalContent
    ? request.message
    : hookPrompt({
        message: request.message,
        name: request.name,
        jobId: session.value.generated ? ids.sessionId : ids.runId,
        at,
        markerId: randomHex(8),
      });
  // `deliver` without a destination is OpenClaw's channel `last`: the main session's last route.
  const deliverTo = request.delivery.deliver ? (target ?? (await lastRoute(ctx, agent.value))) : undefined;
  const started = await startRun(ctx, {
    key,
    runId: ids.runId,
    message,
    origin: "agent",
    provenance: HOOK_PROVENANCE,
    deliver: request.delivery.deliver,
    ...(deliverTo ? { deliverTo } : {}),
    ...(request.thinking ? { thinking: request.thinking } : {}),
    ...(request.timeoutSeconds ? { timeoutSeconds: request.timeoutSeconds } : {}),
    // An isolated run in a named key starts a new transcript there (OpenClaw: a fresh session).
    ...(request.sessionMode === "isolated" && !session.value.generated ? { resetFirst: "new" as const } : {}),
  });
  const runId = started.runId;
  if (!options.waitForCompletion) return { status: 200, body: { ok: true, runId } };
  const waitMs = Math.min(HOOK_WAIT_MAX_MS, (request.timeoutSeconds ?? 600) * 1000 + 5_000);
  const snapshot = await ctx.sessions(started.sessionKey).waitRun(runId, waitMs);
  return {
    status: 200,
    body: { ok: true, runId, completion: await completionOf(ctx, started.sessionKey, snapshot, deliverTo) },
  };
}

/** Where the agent's main session was last reached (its delivery context), if anywhere. */
async function lastRoute(ctx: TenantContext, agentId: string): Promise<DeliveryTarget | undefined> {
  const entry = await ctx.sessions(mainKeyOf(ctx, agentId)).entry();
  return (entry && deliveryTargetOf(entry)) ?? undefined;
}

/** OpenClaw's `completion`: status, reply disposition and, for a finished run, its delivery. */
async function completionOf(
  ctx: TenantContext,
  key: string,
  snapshot: RunSnapshot | null,
  target: DeliveryTarget | undefined,
): Promise<Record<string, unknown>> {
  if (!snapshot || snapshot.status === "pending") return { status: "timeout", replyDisposition: "empty" };
  if (snapshot.status !== "ok") return { status: snapshot.status, replyDisposition: "empty" };
  const disposition = terminalReply(snapshot.reply).disposition;
  const attempted = target !== undefined && disposition === "visible";
  const delivered = attempted && (await deliverySent(ctx, key, snapshot.runId));
  return { status: "ok", replyDisposition: disposition, delivered, deliveryAttempted: attempted };
}

/** Whether the run's outbox row was sent, waiting a little for its first attempt. */
async function deliverySent(ctx: TenantContext, key: string, runId: string): Promise<boolean> {
  const deadline = Date.now() + DELIVERY_WAIT_MS;
  for (;;) {
    const row = (await ctx.sessions(key).deliveries(20)).find((d) => d.idempotencyKey === hookDeliveryKey(runId));
    if (row && row.status !== "pending") return row.status === "delivered";
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, DELIVERY_POLL_MS));
  }
}

/**
 * `POST <path>/wake` and wake mappings. This service has no heartbeat: `now` starts a run of
 * the main session (or the caller's allowed key) whose message is the system event line;
 * `next-heartbeat` appends the line to the main session's transcript for its next run, once
 * while it is the latest message (a repeat is `coalesced`).
 */
export async function wakeHook(
  ctx: TenantContext,
  hooks: HooksConfig,
  request: HookWakeRequest,
  now = new Date(),
): Promise<HookAnswer> {
  const agent = agentOf(ctx, hooks, request.agentId);
  if (!agent.ok) return refuse(agent.error);
  let key = mainKeyOf(ctx, agent.value);
  if (request.sessionKey) {
    const session = hookSessionKey(hooks, { key: request.sessionKey, source: "request" }, "");
    if (!session.ok) return refuse(session.error);
    key = storeKey(ctx, session.value.key, agent.value);
  }
  const line = systemEventLine(request.text, now);
  const provenance: InputProvenance = { kind: "internal_system", sourceTool: "hooks.wake" };
  if (request.mode === "now") {
    // OpenClaw's heartbeat posts a visible reply to the main session's last route (SPEC §2.3).
    const replyTarget = lastRouteOf(await ctx.sessions(key).entry());
    await startRun(ctx, {
      key,
      runId: crypto.randomUUID(),
      message: line,
      origin: "agent",
      provenance,
      ...(replyTarget ? { replyTarget } : {}),
    });
    return { status: 200, body: { ok: true, mode: "now", eventOutcome: "queued" } };
  }
  const stub = ctx.sessions(key);
  const tail = await stub.read({ direction: "tail", limit: 1, includeTools: false, maxBytes: WAKE_TAIL_MAX_BYTES });
  const last = tail?.messages.at(-1);
  const content = last ? (JSON.parse(last.json) as { content?: unknown }).content : undefined;
  const lastText = typeof content === "string" ? content : "";
  if (last?.role === "user" && lastText.startsWith("System: [") && lastText.endsWith(`] ${request.text}`)) {
    return { status: 200, body: { ok: true, mode: "next-heartbeat", eventOutcome: "coalesced" } };
  }
  await refusalsRestored(
    stub.append(sessionRef(ctx, key), { messages: [{ role: "user", content: line, provenance }] }),
  );
  return { status: 200, body: { ok: true, mode: "next-heartbeat", eventOutcome: "queued" } };
}

/** The route a session's last turn came in on (a chat), where a wake's reply goes; none for a session no chat reached. */
function lastRouteOf(entry: SessionEntry | null | undefined): DeliveryTarget | undefined {
  const route = entry?.deliveryContext;
  if (!route?.channel || !route.to) return undefined;
  return dropUndefined({ channel: route.channel, to: route.to, accountId: route.accountId, threadId: route.threadId });
}

function randomHex(bytes: number): string {
  return [...crypto.getRandomValues(new Uint8Array(bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
}
