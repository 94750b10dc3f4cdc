import type { SessionRef, SpawnLineage, StartResult, StartRun } from "../contracts/session-api";
import type { SpawnSpec } from "../model/spawn";
import type { SessionParts } from "./session-parts";

/** Thrown inside the commit to undo it: the child's run was refused. */
class RunRefused extends Error {
  constructor(readonly result: StartResult) {
    super("run refused");
  }
}

/**
 * A sub-agent's lineage, spawn record and run in one commit. A run refused for its size (the
 * task past the tenant's bytes per session) undoes the commit: no child without its run.
 */
export function startSpawnChild(
  parts: Pick<SessionParts, "store" | "stores" | "transcript" | "runs">,
  ref: SessionRef,
  lineage: SpawnLineage,
  request: StartRun,
  spec: SpawnSpec,
  now = Date.now(),
): StartResult {
  try {
    return parts.store.transaction(() => {
      parts.transcript.recordLineage(ref, lineage, now);
      parts.stores.spawns.insert(request.runId, spec, now);
      const started = parts.runs.start({ ...request, tenantId: ref.tenantId, agentId: ref.agentId }, now);
      if (started.status === "too_large") throw new RunRefused(started);
      return started;
    });
  } catch (error) {
    if (error instanceof RunRefused) return error.result;
    throw error;
  }
}
