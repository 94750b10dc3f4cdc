import type { MessageRecord } from "../contracts/session-api";
import type { DeliveryTarget } from "../delivery/delivery-store";
import type { RunnerConfig } from "../protocol/config";
import type { InputProvenance, SessionEntry } from "../protocol/session";
import type { RunSnapshot } from "../runs/run-types";
import { contentText } from "../runs/runners/runner";
import { announceText, isSilentResult, outcomeOf, statsLine, statusLabel } from "./announce";
import type { Spawn, SpawnStore } from "./spawn-store";

/** What a requester receives: appended (and run) in its session, delivered to its channel. */
export type AnnounceDelivery = {
  runId: string;
  sandboxed: boolean;
  text: string;
  channelText: string;
  provenance: InputProvenance;
  runner: RunnerConfig;
  deliver: boolean;
  fallbackTarget?: DeliveryTarget;
};

/** Longest child result quoted in an announce. */
const ANNOUNCE_RESULT_MAX_CHARS = 100_000;

export type SpawnHost = {
  spawns(): SpawnStore;
  entry(): SessionEntry | null;
  snapshot(runId: string): RunSnapshot | null;
  /** Newest messages of the current transcript (tool results included). */
  recentMessages(limit: number): MessageRecord[];
  /** Sends the announce to a session; false when that session does not exist any more. */
  sendAnnounce(key: string, agentId: string, announce: AnnounceDelivery): Promise<boolean>;
  setTimer(kind: "spawn-announce" | "spawn-archive", runId: string, dueAt: number): void;
  archiveSelf(): Promise<void>;
  /** Removes the child's stored attachments. */
  dropAttachments(): Promise<void>;
  deleteSelf(): Promise<void>;
};

/**
 * After a sub-agent's run ends: announce the outcome to the requester (or, when it is gone,
 * to the requester's own requester), then delete (`cleanup: "delete"`) or archive later.
 * Alarm-driven and idempotent: the announce run id is derived from the child run id.
 */
export class SpawnDriver {
  constructor(private readonly host: SpawnHost) {}

  /** The child's run settled: schedule the announce (the alarm runs it, surviving eviction). */
  settled(runId: string, now = Date.now()): boolean {
    const spawn = this.host.spawns().get(runId);
    if (spawn?.state !== "running") return false;
    this.host.setTimer("spawn-announce", runId, now);
    return true;
  }

  async onTimer(kind: string, runId: string, now = Date.now()): Promise<boolean> {
    if (kind === "spawn-announce") {
      await this.announce(runId, now);
      return true;
    }
    if (kind === "spawn-archive") {
      const spawn = this.host.spawns().get(runId);
      if (spawn && spawn.state === "announced") {
        await this.host.archiveSelf();
        this.host.spawns().mark(runId, "archived", now);
      }
      return true;
    }
    return false;
  }

  private async announce(runId: string, now: number): Promise<void> {
    const spawn = this.host.spawns().get(runId);
    const entry = this.host.entry();
    if (spawn?.state !== "running" || !entry) return;
    const snapshot = this.host.snapshot(runId);
    if (snapshot?.status === "pending") return; // settled() reschedules when it ends
    const outcome = outcomeOf(snapshot);
    const full = (snapshot?.reply ?? "").trim() || this.latestToolResult();
    // The announce must fit in one transcript message with its wrapper and stats.
    const result =
      full.length > ANNOUNCE_RESULT_MAX_CHARS ? `${full.slice(0, ANNOUNCE_RESULT_MAX_CHARS)}\n…(truncated)…` : full;
    if (!isSilentResult(result)) await this.deliver(spawn, entry, snapshot, outcome, result);
    this.host.spawns().mark(runId, "announced", now, outcome);
    if (spawn.spec.cleanup === "delete") {
      await this.host.deleteSelf();
      return;
    }
    // A kept child keeps its attachments only with tools.sessions_spawn.attachments.retainOnSessionKeep.
    if (!spawn.spec.retainAttachments) await this.host.dropAttachments();
    if (spawn.spec.mode === "run" && spawn.spec.archiveAfterMinutes > 0) {
      this.host.setTimer("spawn-archive", runId, now + spawn.spec.archiveAfterMinutes * 60_000);
    }
  }

  private async deliver(
    spawn: Spawn,
    entry: SessionEntry,
    snapshot: RunSnapshot | null,
    outcome: ReturnType<typeof outcomeOf>,
    result: string,
  ): Promise<void> {
    const spec = spawn.spec;
    const notes = [
      ...(spec.cleanup === "delete" ? ["the sub-agent session is deleted after this announce"] : []),
      ...(outcome === "timeout" ? ["the run hit its runTimeoutSeconds"] : []),
      ...(spec.mode === "session" ? ["thread-bound session stays active"] : []),
    ];
    const stats = statsLine({
      ...(entry.runtimeMs !== undefined ? { runtimeMs: entry.runtimeMs } : {}),
      inputTokens: entry.inputTokens ?? 0,
      outputTokens: entry.outputTokens ?? 0,
      ...(entry.totalTokens !== undefined ? { totalTokens: entry.totalTokens } : {}),
      ...(entry.estimatedCostUsd !== undefined ? { costUsd: entry.estimatedCostUsd } : {}),
      sessionKey: entry.key,
      sessionId: entry.sessionId,
      transcriptPath: `${spec.transcriptBase}/${entry.agentId}/${entry.sessionId}.jsonl`,
    });
    const text = announceText({
      childSessionKey: entry.key,
      childSessionId: entry.sessionId,
      task: spec.task,
      ...(spec.label ? { label: spec.label } : {}),
      outcome,
      ...(snapshot?.error ? { error: snapshot.error } : {}),
      result,
      notes,
      stats,
      requesterIsSubagent: spec.requesterIsSubagent,
    });
    const channelText = [
      `A background task "${spec.label ?? spec.task}" just ${statusLabel(outcome, snapshot?.error)}.`,
      "",
      "Findings:",
      result || "(no output)",
      "",
      stats,
    ].join("\n");
    const announce: AnnounceDelivery = {
      runId: `${spawn.runId}:announce`,
      sandboxed: spec.requesterSandboxed,
      text,
      channelText,
      provenance: { kind: "internal_system", sourceSessionKey: entry.key, sourceTool: "sessions_spawn" },
      runner: spec.requesterRunner,
      deliver: !spec.requesterIsSubagent,
      ...(spec.fallbackTarget ? { fallbackTarget: spec.fallbackTarget } : {}),
    };
    if (await this.host.sendAnnounce(spec.requesterKey, spec.requesterAgentId, announce)) return;
    // The requester is gone: its own requester gets the announce, as OpenClaw intends.
    if (spec.fallbackKey)
      await this.host.sendAnnounce(spec.fallbackKey, spec.fallbackAgentId ?? spec.requesterAgentId, {
        ...announce,
        deliver: true,
      });
  }

  /** The latest tool result's text, used when the final assistant text is empty. */
  private latestToolResult(): string {
    const messages = this.host.recentMessages(50);
    for (let i = messages.length - 1; i >= 0; i--) {
      const record = messages[i]!;
      if (record.role !== "toolResult") continue;
      const text = contentText((JSON.parse(record.json) as { content: unknown }).content).trim();
      if (text) return text;
    }
    return "";
  }
}
