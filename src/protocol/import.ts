import { z } from "zod";
import { chatTypeSchema, deliveryContextSchema, originSchema, transcriptMessageSchema } from "./session";
import { fileChunkSchema, IMPORT_MAX_FILE_CHUNKS } from "./session-files";

/**
 * Importing sessions from another OpenClaw gateway (or another tenant): messages keep the
 * position, id and timestamps they have at the source, and the entry fields come along.
 */

export const IMPORT_MAX_MESSAGES = 1000;

/** A transcript id: UUIDs in practice; other ids must still be safe in keys and paths. */
export const SOURCE_SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/**
 * Where a message sits at the source: OpenClaw's `__openclaw` block as `chat.history` returns
 * it. `id` and `seq` are kept; the source's other display metadata is not.
 */
export const sourcePositionSchema = z.looseObject({
  id: z.string().min(1).max(256),
  seq: z.int().min(1).max(Number.MAX_SAFE_INTEGER),
  recordTimestampMs: z.number().finite().nonnegative().optional(),
});

/** A message as `chat.history` returns it. Fields newer gateways add are kept as they are. */
export const importMessageSchema = z.looseObject({
  ...transcriptMessageSchema.shape,
  __openclaw: sourcePositionSchema,
});
export type ImportMessage = z.infer<typeof importMessageSchema>;

const text = (max: number) => z.string().min(1).max(max);
const count = z.number().finite().nonnegative();
const time = z.number().finite().nonnegative();

/** The source's entry fields this service keeps; everything else of an entry is derived here. */
export const importEntrySchema = z.strictObject({
  createdAt: time.optional(),
  updatedAt: time.optional(),
  label: text(512).optional(),
  displayName: text(512).optional(),
  subject: text(512).optional(),
  space: text(256).optional(),
  channel: text(64).optional(),
  chatType: chatTypeSchema.optional(),
  origin: originSchema.optional(),
  deliveryContext: deliveryContextSchema.optional(),
  lastChannel: text(64).optional(),
  lastTo: text(512).optional(),
  lastAccountId: text(256).optional(),
  lastThreadId: z.union([text(256), z.number()]).optional(),
  model: text(256).optional(),
  modelProvider: text(128).optional(),
  contextTokens: count.optional(),
  thinkingLevel: text(32).optional(),
  fastMode: z.boolean().optional(),
  verboseLevel: text(32).optional(),
  reasoningLevel: text(32).optional(),
  elevatedLevel: text(32).optional(),
  responseUsage: z.enum(["on", "off", "tokens", "full"]).optional(),
  groupActivation: z.enum(["mention", "always"]).optional(),
  sendPolicy: z.enum(["allow", "deny"]).optional(),
  execHost: text(256).optional(),
  execSecurity: text(64).optional(),
  execAsk: text(64).optional(),
  execNode: text(256).optional(),
  spawnedWorkspaceDir: text(1024).optional(),
  inputTokens: count.optional(),
  outputTokens: count.optional(),
  totalTokens: count.optional(),
  estimatedCostUsd: count.optional(),
  systemSent: z.boolean().optional(),
  abortedLastRun: z.boolean().optional(),
  spawnedBy: text(512).optional(),
  parentSessionKey: text(512).optional(),
  spawnDepth: z.int().min(0).max(10).optional(),
  subagentRole: z.enum(["orchestrator", "leaf"]).optional(),
  subagentControlScope: z.enum(["children", "none"]).optional(),
  sandboxed: z.boolean().optional(),
  status: z.enum(["running", "done", "failed", "killed", "timeout"]).optional(),
  startedAt: time.optional(),
  endedAt: time.optional(),
  runtimeMs: count.optional(),
  archivedAt: time.optional(),
  // The Control UI's read/unread and pin marks (the row's unread / pinned derive from them).
  lastInteractionAt: time.optional(),
  lastReadAt: time.optional(),
  markedUnreadAt: time.optional(),
  pinnedAt: time.optional(),
});
export type ImportEntry = z.infer<typeof importEntrySchema>;

/**
 * `POST /v1/sessions/{key}/import`: one page of a source transcript, oldest first. The
 * session takes the source's `sessionId`; a message whose seq it already holds is skipped,
 * so a repeated or resumed import never writes a message twice.
 */
export const importBodySchema = z
  .strictObject({
    sessionId: z.string().regex(SOURCE_SESSION_ID_PATTERN, "sessionId must match [A-Za-z0-9][A-Za-z0-9._:-]{0,127}"),
    entry: importEntrySchema.optional(),
    messages: z.array(importMessageSchema).max(IMPORT_MAX_MESSAGES).default([]),
    /**
     * The source was read through this seq: seqs up to it that no message carries were hidden
     * by the source's history rules (silent replies) and will not come.
     */
    throughSeq: z.int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
    /**
     * Chunks of the session's stored files (the export's `file` lines): written under this
     * tenant's prefix for the session once a file's chunks are all in and its SHA-256 matches.
     */
    files: z.array(fileChunkSchema).max(IMPORT_MAX_FILE_CHUNKS).optional(),
  })
  .superRefine((body, issues) => {
    let previous = 0;
    body.messages.forEach((message, index) => {
      const seq = message.__openclaw.seq;
      if (seq <= previous) {
        issues.addIssue({
          code: "custom",
          path: ["messages", index, "__openclaw", "seq"],
          message: "seq must increase from message to message",
        });
      }
      previous = seq;
    });
    if (body.throughSeq !== undefined && body.throughSeq < previous) {
      issues.addIssue({ code: "custom", path: ["throughSeq"], message: "throughSeq is below the last message's seq" });
    }
  });
export type ImportBody = z.infer<typeof importBodySchema>;

/** An import page the session refuses (not its import, or the source rewrote what it holds). */
export type ImportConflict = { rejected: "conflict"; message: string };

/** What one import page did. */
export type ImportResult = {
  sessionKey: string;
  sessionId: string;
  created: boolean;
  /** Messages written by this page. */
  imported: number;
  /** Messages of this page the session already held (from an earlier or interrupted run). */
  skipped: number;
  /** The highest source seq the session now holds. */
  lastSeq: number;
  /** What the page's file chunks did (only when it carried some). */
  files?: FileChunksResult;
};

/** An import page's file chunks: kept until their file is whole, then stored as one file. */
export type FileChunksResult = {
  /** Chunks kept for files not yet whole. */
  staged: number;
  /** Files this page completed: checked and stored under the session. */
  stored: string[];
  /** Chunks of files the session already holds with the same SHA-256 (a rerun). */
  skipped: number;
};
