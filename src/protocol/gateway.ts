import { z } from "zod";
import { inputProvenanceSchema, sessionMarksSchema, sessionPatchFieldsSchema } from "./session";

/**
 * The gateway WebSocket protocol (OpenClaw protocol 3 and 4): frames, the connect
 * handshake and the params of the session methods. Frames are closed objects.
 */

export const SUPPORTED_PROTOCOLS = [3, 4] as const;
export const MAX_PREAUTH_PAYLOAD_BYTES = 64 * 1024;
export const MAX_PAYLOAD_BYTES = 25 * 1024 * 1024;
export const MAX_BUFFERED_BYTES = 50 * 1024 * 1024;
export const TICK_INTERVAL_MS = 30_000;

export const ERROR_CODES = [
  "NOT_LINKED",
  "NOT_PAIRED",
  "AGENT_TIMEOUT",
  "INVALID_REQUEST",
  "APPROVAL_NOT_FOUND",
  "UNAVAILABLE",
  "FORBIDDEN",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];
export type ErrorShape = {
  code: ErrorCode;
  message: string;
  details?: unknown;
  retryable?: boolean;
  retryAfterMs?: number;
};

// Envelope properties it does not know are ignored (newer clients add some, as traceparent was).
export const requestFrameSchema = z.object({
  type: z.literal("req"),
  id: z.string().min(1).max(256),
  method: z.string().min(1).max(256),
  params: z.unknown().optional(),
  traceparent: z.string().max(128).optional(),
  expectedProfileId: z.string().min(1).max(128).optional(),
});
export type RequestFrame = z.infer<typeof requestFrameSchema>;

export const CLIENT_IDS = [
  "webchat-ui",
  "openclaw-control-ui",
  "openclaw-browser-copilot",
  "openclaw-tui",
  "webchat",
  "cli",
  "gateway-client",
  "openclaw-macos",
  "openclaw-linux",
  "openclaw-ios",
  "openclaw-watchos",
  "openclaw-android",
  "node-host",
  "openclaw-worker",
  "test",
  "fingerprint",
  "openclaw-probe",
] as const;
export const CLIENT_MODES = ["webchat", "cli", "ui", "backend", "node", "worker", "probe", "test"] as const;

// Connect params ignore properties this service does not know (newer clients send more, e.g. the
// Control UI's client.buildId and timeZone); the known ones are validated.
export const connectParamsSchema = z.object({
  minProtocol: z.int().min(1),
  maxProtocol: z.int().min(1),
  client: z.object({
    id: z.enum(CLIENT_IDS),
    displayName: z.string().optional(),
    version: z.string().min(1),
    platform: z.string().min(1),
    deviceFamily: z.string().optional(),
    modelIdentifier: z.string().optional(),
    mode: z.enum(CLIENT_MODES),
    instanceId: z.string().optional(),
    buildId: z.string().min(1).max(96).optional(),
    timeZone: z.string().min(1).max(64).optional(),
  }),
  caps: z.array(z.string()).optional(),
  commands: z.array(z.string()).optional(),
  permissions: z.record(z.string(), z.boolean()).optional(),
  pathEnv: z.string().optional(),
  role: z.string().optional(),
  scopes: z.array(z.string()).optional(),
  device: z
    .strictObject({
      id: z.string().min(1),
      publicKey: z.string().min(1),
      signature: z.string().min(1),
      signedAt: z.int().min(0),
      nonce: z.string().min(1),
    })
    .optional(),
  auth: z
    .object({
      token: z.string().optional(),
      bootstrapToken: z.string().optional(),
      deviceToken: z.string().optional(),
      password: z.string().optional(),
      approvalRuntimeToken: z.string().optional(),
      agentRuntimeIdentityToken: z.string().optional(),
    })
    .optional(),
  locale: z.string().optional(),
  userAgent: z.string().optional(),
  /** Accepted for OpenClaw clients; no equivalent feature here. */
  computerUse: z.unknown().optional(),
  workerRuns: z.unknown().optional(),
  modelCatalog: z.unknown().optional(),
});
export type ConnectParams = z.infer<typeof connectParamsSchema>;

const key = z.string().trim().min(1, "key required").max(512);
const sessionKey = z.string().trim().min(1).max(512);

/** Params of every gateway method this service implements, by method name. */
export const methodParamSchemas = {
  /** The real gateway does not validate health params. */
  health: z.unknown(),
  "sessions.unsubscribe": z.object({}),
  "sessions.messages.subscribe": z.object({
    key,
    agentId: z.string().optional(),
    includeApprovals: z.boolean().optional(),
  }),
  "sessions.messages.unsubscribe": z.strictObject({ key, agentId: z.string().optional() }),
  "sessions.describe": z.object({
    key,
    agentId: z.string().optional(),
    includeDerivedTitles: z.boolean().optional(),
    includeLastMessage: z.boolean().optional(),
  }),
  // The Control UI's read/pin/archive marks and its optimistic-concurrency guards come along.
  "sessions.patch": sessionPatchFieldsSchema.extend({ key, ...sessionMarksSchema.shape }).strip(),
  "sessions.reset": z.strictObject({ key, reason: z.enum(["new", "reset"]).optional() }),
  "sessions.delete": z.strictObject({
    key,
    deleteTranscript: z.boolean().optional(),
    emitLifecycleHooks: z.boolean().optional(),
  }),
  "sessions.preview": z.strictObject({
    keys: z.array(z.string().min(1).max(512)).min(1),
    limit: z.int().min(1).optional(),
    maxChars: z.int().min(20).optional(),
  }),
  "sessions.create": z.strictObject({
    key: z.string().trim().min(1).max(512).optional(),
    agentId: z.string().min(1).max(64).optional(),
    label: z.string().min(1).max(512).optional(),
    model: z.string().min(1).optional(),
    parentSessionKey: z.string().min(1).max(512).optional(),
    task: z.string().optional(),
    message: z.string().optional(),
    /** Copying the parent's transcript is not offered: `fork: true` is refused. */
    fork: z.boolean().optional(),
  }),
  /** The real gateway does not validate sessions.get params; the handler reads them leniently. */
  "sessions.get": z.looseObject({
    key: z.unknown().optional(),
    sessionKey: z.unknown().optional(),
    limit: z.unknown().optional(),
    agentId: z.unknown().optional(),
  }),
  "chat.history": z.object({
    sessionKey,
    cursor: z.string().optional(),
    limit: z.int().min(1).max(1000).optional(),
    maxChars: z.int().min(1).max(500_000).optional(),
    /** The messages' JSON budget: the oldest that do not fit are left out. */
    maxBytes: z.int().min(1024).optional(),
    /** Messages to skip from the newest (OpenClaw's backwards paging). */
    offset: z.int().min(0).optional(),
  }),
  "chat.inject": z.strictObject({
    sessionKey,
    message: z.string(),
    label: z.string().max(100).optional(),
  }),
  "agents.list": z.object({}),
  "chat.send": z.object({
    sessionKey: z.string().trim().min(1).max(512),
    sessionId: z.string().optional(),
    expectedLeafEntryId: z.string().nullable().optional(),
    message: z.string(),
    thinking: z.string().optional(),
    deliver: z.boolean().optional(),
    originatingChannel: z.string().optional(),
    originatingTo: z.string().optional(),
    originatingAccountId: z.string().optional(),
    originatingThreadId: z.string().optional(),
    attachments: z.array(z.unknown()).optional(),
    timeoutMs: z.int().min(0).optional(),
    systemInputProvenance: inputProvenanceSchema.optional(),
    systemProvenanceReceipt: z.string().optional(),
    /** The message is text even when it starts with a slash command. */
    suppressCommandInterpretation: z.boolean().optional(),
    idempotencyKey: z.string().min(1).max(256),
  }),
  agent: z.strictObject({
    message: z.string().min(1),
    agentId: z.string().optional(),
    provider: z.string().optional(),
    model: z.string().optional(),
    to: z.string().optional(),
    replyTo: z.string().optional(),
    sessionId: z.string().optional(),
    sessionKey: z.string().trim().min(1).max(512).optional(),
    thinking: z.string().optional(),
    deliver: z.boolean().optional(),
    attachments: z.array(z.unknown()).optional(),
    channel: z.string().optional(),
    replyChannel: z.string().optional(),
    accountId: z.string().optional(),
    replyAccountId: z.string().optional(),
    threadId: z.string().optional(),
    groupId: z.string().optional(),
    groupChannel: z.string().optional(),
    groupSpace: z.string().optional(),
    timeout: z.int().min(0).optional(),
    bestEffortDeliver: z.boolean().optional(),
    lane: z.string().optional(),
    extraSystemPrompt: z.string().optional(),
    internalEvents: z.array(z.unknown()).optional(),
    inputProvenance: inputProvenanceSchema.optional(),
    idempotencyKey: z.string().min(1).max(256),
    label: z.string().optional(),
  }),
  "agent.wait": z.strictObject({ runId: z.string().min(1), timeoutMs: z.int().min(0).optional() }),
  "chat.abort": z.strictObject({ sessionKey: z.string().trim().min(1).max(512), runId: z.string().min(1).optional() }),
  // No key: the run's own session (OpenClaw finds it by the run id); neither is "key required".
  "sessions.abort": z.object({
    key: z.string().trim().max(512).optional(),
    runId: z.string().min(1).optional(),
    agentId: z.string().optional(),
    clearQueued: z.boolean().optional(),
  }),
} as const;
