import type { AnnounceDelivery } from "../contracts/session-api";
import type { MessageRecord } from "../model/message-record";
import { parseMessage } from "../model/message-record";
import type { RunSnapshot } from "../model/run-types";
import type { Spawn } from "../model/spawn";
import type { SessionEntry } from "../protocol/session";
import { contentText } from "../runs/runners/runner";
import type { TimerPort } from "../timers/timers";
import { announceText, isSilentResult, outcomeOf, statsLine, statusLabel } from "./announce";
import type { SpawnStore } from "./spawn-store";

/** Longest child result quoted in an announce. */
const ANNOUNCE_RESULT_MAX_CHARS = 100_000;

/** What the driver needs from the sub-agent's own session object. */
export type SpawnPorts = {
  store: SpawnStore;
  timers: TimerPort;
  entry(): SessionEntry | null;
  snapshot(runId: string): RunSnapshot | null;
  /** Newest messages of the current transcript (tool results included). */
  recentMessages(limit: number): MessageRecord[];
  /** Sends the announce to a session; false when that session does not exist any more. */
  sendAnnounce(key: string, agentId: string, announce: AnnounceDelivery): Promise<boolean>;
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
  constructor(private readonly ports: SpawnPorts) {}

  /** The child's run settled: schedule the announce (the alarm runs it, surviving eviction). */
  settled(runId: string, now = Date.now()): boolean {
    const spawn = this.ports.store.get(runId);
    if (spawn?.state !== "running") return false;
    this.ports.timers.set("spawn-announce", runId, now);
    return true;
  }

  /** After a restart: an ended run not yet announced, or a due archive, gets its timer back. */
  reconcile(now = Date.now()): void {
    for (const spawn of this.ports.store.unfinished()) {
      if (spawn.state === "running" && this.ports.snapshot(spawn.runId)?.status !== "pending") {
        if (!this.ports.timers.refs("spawn-announce").has(spawn.runId)) this.settled(spawn.runId, now);
      } else if (spawn.state === "announced" && archives(spawn)) {
        if (!this.ports.timers.refs("spawn-archive").has(spawn.runId)) {
          this.ports.timers.set(
            "spawn-archive",
            spawn.runId,
            spawn.updatedAt + spawn.spec.archiveAfterMinutes * 60_000,
          );
        }
      }
    }
  }

  /** The `spawn-archive` timer: a kept child is hidden from lists once its time is up. */
  async archive(runId: string, now = Date.now()): Promise<void> {
    const spawn = this.ports.store.get(runId);
    if (spawn?.state !== "announced") return;
    await this.ports.archiveSelf();
    this.ports.store.mark(runId, "archived", now);
  }

  /**
   * The `spawn-announce` timer: tell the requester how the child's run ended, then clean up.
   * Each step is idempotent and the state is saved between them, so a crash anywhere repeats
   * only what had not finished (the announce run id is derived from the child run id).
   */
  async announce(runId: string, now = Date.now()): Promise<void> {
    let spawn = this.ports.store.get(runId);
    const entry = this.ports.entry();
    if (!spawn || !entry) return;
    if (spawn.state === "running") {
      const snapshot = this.ports.snapshot(runId);
      if (snapshot?.status === "pending") return; // settled() reschedules when it ends
      const outcome = outcomeOf(snapshot);
      const full = (snapshot?.reply ?? "").trim() || this.latestToolResult();
      // The announce must fit in one transcript message with its wrapper and stats.
      const result =
        full.length > ANNOUNCE_RESULT_MAX_CHARS ? `${full.slice(0, ANNOUNCE_RESULT_MAX_CHARS)}\n…(truncated)…` : full;
      if (!isSilentResult(result)) await this.deliver(spawn, entry, snapshot, outcome, result);
      this.ports.store.mark(runId, "announced", now, outcome);
      spawn = { ...spawn, state: "announced" };
    }
    if (spawn.state !== "announced") return;
    if (spawn.spec.cleanup === "delete") {
      await this.ports.deleteSelf();
      return;
    }
    // A kept child keeps its attachments only with tools.sessions_spawn.attachments.retainOnSessionKeep.
    if (!spawn.spec.retainAttachments) await this.ports.dropAttachments();
    if (archives(spawn)) this.ports.timers.set("spawn-archive", runId, now + spawn.spec.archiveAfterMinutes * 60_000);
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
    if (await this.ports.sendAnnounce(spec.requesterKey, spec.requesterAgentId, announce)) return;
    // The requester is gone: its own requester gets the announce, as OpenClaw intends.
    if (spec.fallbackKey)
      await this.ports.sendAnnounce(spec.fallbackKey, spec.fallbackAgentId ?? spec.requesterAgentId, {
        ...announce,
        deliver: true,
      });
  }

  /** The latest tool result's text, used when the final assistant text is empty. */
  private latestToolResult(): string {
    const messages = this.ports.recentMessages(50);
    for (let i = messages.length - 1; i >= 0; i--) {
      const record = messages[i]!;
      if (record.role !== "toolResult") continue;
      const text = contentText(parseMessage(record).content).trim();
      if (text) return text;
    }
    return "";
  }
}

/** Kept children of a one-shot run are archived after `archiveAfterMinutes`. */
function archives(spawn: Spawn): boolean {
  return spawn.spec.cleanup !== "delete" && spawn.spec.mode === "run" && spawn.spec.archiveAfterMinutes > 0;
}
