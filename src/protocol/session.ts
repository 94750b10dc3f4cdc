import { z } from "zod";

/** Shapes of sessions and transcript messages, in OpenClaw's transcript format. */

export const MESSAGE_ROLES = ["user", "assistant", "toolResult", "system"] as const;

/** A content block; `type` is required, the rest follows the block kind. */
export const contentBlockSchema = z.looseObject({ type: z.string().min(1).max(64) });

/** OpenClaw's input provenance (its fields; others are dropped, as newer clients may send more). */
export const inputProvenanceSchema = z.object({
  kind: z.enum(["external_user", "inter_session", "internal_system"]),
  originSessionId: z.string().optional(),
  sourceSessionKey: z.string().optional(),
  sourceChannel: z.string().optional(),
  sourceTool: z.string().optional(),
  sourceRole: z.literal("subagent").optional(),
  sourcePromptPrefix: z.string().optional(),
  jobId: z.string().optional(),
  runId: z.string().optional(),
});

export type InputProvenance = z.infer<typeof inputProvenanceSchema>;

const usageSchema = z.record(z.string(), z.unknown());

/** One transcript message as OpenClaw writes it (role user | assistant | toolResult | system). */
export const transcriptMessageSchema = z.strictObject({
  role: z.enum(MESSAGE_ROLES),
  content: z.union([z.string(), z.array(contentBlockSchema).max(10_000)]),
  timestamp: z.number().finite().nonnegative().optional(),
  usage: usageSchema.optional(),
  cost: usageSchema.optional(),
  provenance: inputProvenanceSchema.optional(),
  api: z.string().max(128).optional(),
  provider: z.string().max(128).optional(),
  model: z.string().max(256).optional(),
  stopReason: z.string().max(64).optional(),
  errorMessage: z.string().optional(),
  responseId: z.string().max(256).optional(),
  toolCallId: z.string().max(256).optional(),
  toolName: z.string().max(256).optional(),
  isError: z.boolean().optional(),
  details: z.unknown().optional(),
  idempotencyKey: z.string().max(256).optional(),
  openclawAbort: z.looseObject({ aborted: z.boolean() }).optional(),
});
export type TranscriptMessage = z.infer<typeof transcriptMessageSchema>;

export const originSchema = z.strictObject({
  label: z.string().max(512).optional(),
  provider: z.string().max(64).optional(),
  surface: z.string().max(64).optional(),
  chatType: z.string().max(32).optional(),
  from: z.string().max(512).optional(),
  to: z.string().max(512).optional(),
  accountId: z.string().max(256).optional(),
  threadId: z.union([z.string().max(256), z.number()]).optional(),
  /** The platform's own conversation id (OpenClaw's Slack rows: `C0MENTION`). */
  nativeChannelId: z.string().max(256).optional(),
});

export const deliveryContextSchema = z.strictObject({
  channel: z.string().max(64).optional(),
  to: z.string().max(512).optional(),
  accountId: z.string().max(256).optional(),
  threadId: z.union([z.string().max(256), z.number()]).optional(),
});

export const chatTypeSchema = z.enum(["direct", "group", "channel"]);

/** Fields a first message (or sessions.create / patch) may set on a new session. */
export const sessionSeedSchema = z.strictObject({
  origin: originSchema.optional(),
  deliveryContext: deliveryContextSchema.optional(),
  chatType: chatTypeSchema.optional(),
  displayName: z.string().min(1).max(512).optional(),
  label: z.string().min(1).max(512).optional(),
  channel: z.string().min(1).max(64).optional(),
  /** A group chat's subject (OpenClaw's `subject`: the group's title, Slack's `<team> #<channel>`). */
  subject: z.string().min(1).max(512).optional(),
  /** The workspace a group chat is in (OpenClaw's `space`: Slack's team id). */
  space: z.string().min(1).max(256).optional(),
});
export type SessionSeed = z.infer<typeof sessionSeedSchema>;

/** The stored session entry (OpenClaw's SessionEntry fields that apply here). */
export type SessionEntry = {
  key: string;
  agentId: string;
  sessionId: string;
  createdAt: number;
  updatedAt: number;
  label?: string;
  displayName?: string;
  subject?: string;
  space?: string;
  channel?: string;
  chatType?: "direct" | "group" | "channel";
  origin?: z.infer<typeof originSchema>;
  deliveryContext?: z.infer<typeof deliveryContextSchema>;
  lastChannel?: string;
  lastTo?: string;
  lastAccountId?: string;
  lastThreadId?: string | number;
  model?: string;
  modelProvider?: string;
  contextTokens?: number;
  thinkingLevel?: string;
  icon?: string;
  color?: string;
  fastMode?: boolean;
  verboseLevel?: string;
  reasoningLevel?: string;
  elevatedLevel?: string;
  responseUsage?: "on" | "off" | "tokens" | "full";
  groupActivation?: "mention" | "always";
  sendPolicy?: "allow" | "deny";
  execHost?: string;
  execSecurity?: string;
  execAsk?: string;
  execNode?: string;
  spawnedWorkspaceDir?: string;
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  estimatedCostUsd?: number;
  systemSent?: boolean;
  abortedLastRun?: boolean;
  spawnedBy?: string;
  parentSessionKey?: string;
  spawnDepth?: number;
  subagentRole?: "orchestrator" | "leaf";
  subagentControlScope?: "children" | "none";
  sandboxed?: boolean;
  status?: "running" | "done" | "failed" | "killed" | "timeout";
  startedAt?: number;
  endedAt?: number;
  runtimeMs?: number;
  archivedAt?: number;
  /** Control UI marks: pinned since, explicitly marked unread at, last read at. */
  pinnedAt?: number;
  markedUnreadAt?: number;
  lastReadAt?: number;
  /** When the transcript last grew (a message), unlike updatedAt which patches also move. */
  lastInteractionAt?: number;
  /** Messages in the current transcript (the next append gets messageCount + 1). */
  messageCount: number;
  lastMessagePreview?: string;
};

const nullable = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

/** `sessions.patch` fields (null clears an override). The key comes separately. */
export const sessionPatchFieldsSchema = z.strictObject({
  label: nullable(z.string().min(1).max(512)),
  displayName: nullable(z.string().min(1).max(512)),
  /** The Control UI's sidebar icon and color for the session. */
  icon: nullable(z.string().min(1).max(64)),
  color: nullable(z.string().min(1).max(32)),
  thinkingLevel: nullable(z.string().min(1).max(32)),
  fastMode: nullable(z.boolean()),
  verboseLevel: nullable(z.string().min(1).max(32)),
  reasoningLevel: nullable(z.string().min(1).max(32)),
  responseUsage: nullable(z.enum(["off", "tokens", "full", "on"])),
  elevatedLevel: nullable(z.string().min(1).max(32)),
  execHost: nullable(z.string().min(1).max(256)),
  execSecurity: nullable(z.string().min(1).max(64)),
  execAsk: nullable(z.string().min(1).max(64)),
  execNode: nullable(z.string().min(1).max(256)),
  model: nullable(z.string().min(1).max(256)),
  spawnedBy: nullable(z.string().min(1).max(512)),
  spawnedWorkspaceDir: nullable(z.string().min(1).max(1024)),
  spawnDepth: nullable(z.int().min(0).max(10)),
  subagentRole: nullable(z.enum(["orchestrator", "leaf"])),
  subagentControlScope: nullable(z.enum(["children", "none"])),
  sendPolicy: nullable(z.enum(["allow", "deny"])),
  groupActivation: nullable(z.enum(["mention", "always"])),
});
export type SessionPatch = z.infer<typeof sessionPatchFieldsSchema>;

/** The Control UI's `sessions.patch` marks (OpenClaw): read state, pin and archive. */
export const sessionMarksSchema = z.object({
  unread: z.boolean().optional(),
  expectedMarkedUnreadAt: z.number().min(0).nullable().optional(),
  pinned: z.boolean().optional(),
  archived: z.boolean().optional(),
  expectedSessionId: z.string().min(1).optional(),
  agentId: z.string().min(1).optional(),
});
export type SessionMarks = z.infer<typeof sessionMarksSchema>;
