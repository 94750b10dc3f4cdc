import type { SessionRef } from "../contracts/session-api";
import { attachmentsOf } from "../metering/metered-env";
import type { RunLifecycle } from "../runs/run-lifecycle";
import { deleteSessionAttachments } from "../spawn/legacy-attachments";
import type { SpawnPorts } from "../spawn/spawn-driver";
import type { SpawnStore } from "../spawn/spawn-store";
import { sessionApi } from "../stubs";
import type { Timers } from "../timers/timers";
import type { Publisher } from "./publisher";
import type { SessionStore } from "./session-store";
import type { Transcript } from "./transcript";

/** Messages read to find a sub-agent's latest tool result. */
const SPAWN_RESULT_READ_MAX_BYTES = 2 * 1024 * 1024;

/**
 * What a sub-agent's own session object gives its SpawnDriver: its entry and runs, the newest
 * messages, the announce sent to another session, its attachments dropped, itself archived
 * or deleted.
 */
export function spawnHost(parts: {
  env: Env;
  store: SessionStore;
  spawnStore: SpawnStore;
  timers: Timers;
  transcript: Transcript;
  runs: RunLifecycle;
  publisher: Publisher;
  /** The object's own delete (fenced against pending claims). */
  deleteSession(ref: SessionRef): Promise<boolean>;
}): SpawnPorts {
  const { env, store, transcript } = parts;
  return {
    store: parts.spawnStore,
    timers: parts.timers,
    entry: () => transcript.entry(),
    snapshot: (runId) => parts.runs.snapshot(runId),
    recentMessages: (limit) => {
      const entry = transcript.entry();
      if (!entry) return [];
      const query = { sessionId: entry.sessionId, limit, includeTools: true, maxBytes: SPAWN_RESULT_READ_MAX_BYTES };
      return store.tail(query).messages;
    },
    sendAnnounce: async (key, agentId, announce) => {
      const tenantId = store.identity()!.tenantId;
      return sessionApi(env, tenantId, key).receiveAnnounce({ tenantId, key, agentId }, announce);
    },
    dropAttachments: async () => {
      const identity = store.identity();
      if (identity) await deleteSessionAttachments(attachmentsOf(env), identity.tenantId, identity.sessionKey);
    },
    archiveSelf: async () => {
      transcript.updateEntry((entry) => ({ ...entry, archivedAt: Date.now() }));
      await parts.publisher.publish("archive");
    },
    deleteSelf: async () => {
      const identity = store.identity();
      const agentId = transcript.entry()?.agentId ?? "main";
      if (identity) await parts.deleteSession({ tenantId: identity.tenantId, key: identity.sessionKey, agentId });
    },
  };
}
