import type { RunnerConfig } from "../protocol/config";
import type { DeliveryTarget } from "./delivery";

/** The spawn record a sub-agent session keeps about itself (who to announce to, cleanup). */

export type SpawnSpec = {
  tenantId: string;
  task: string;
  label?: string;
  mode: "run" | "session";
  cleanup: "delete" | "keep";
  requesterKey: string;
  requesterAgentId: string;
  requesterIsSubagent: boolean;
  requesterSandboxed: boolean;
  requesterRunner: RunnerConfig;
  /** Who to announce to when the requester is gone (its own requester). */
  fallbackKey?: string;
  fallbackAgentId?: string;
  /** Where to deliver when the requester's channel fields are stale or missing. */
  fallbackTarget?: DeliveryTarget;
  archiveAfterMinutes: number;
  /** tools.sessions_spawn.attachments.retainOnSessionKeep */
  retainAttachments: boolean;
  transcriptBase: string;
};

export type SpawnState = "running" | "announced" | "archived";
export type Spawn = { runId: string; spec: SpawnSpec; state: SpawnState; outcome?: string; updatedAt: number };
