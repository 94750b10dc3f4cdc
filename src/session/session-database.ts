import { DELIVERY_SCHEMA, DeliveryStore } from "../delivery/delivery-store";
import { FLOW_SCHEMA, FlowStore } from "../flows/flow-store";
import { RUN_SCHEMA, RunStore } from "../runs/run-store";
import { TOOL_JOURNAL_SCHEMA, ToolJournal } from "../runs/tool-loop/tool-journal";
import { SPAWN_SCHEMA, SpawnStore } from "../spawn/spawn-store";
import { type LegacyLayout, migrate } from "../storage/migrations";
import { TIMER_SCHEMA } from "../timers/timer-schema";
import { SESSION_SCHEMA_BASELINE } from "./session-schema-baseline";
import { SESSION_SCHEMA, SessionStore } from "./session-store";

/** Every module a session object's database holds, in the order a new object creates them. */
export const SESSION_OBJECT_SCHEMAS = [
  SESSION_SCHEMA,
  RUN_SCHEMA,
  TIMER_SCHEMA,
  DELIVERY_SCHEMA,
  FLOW_SCHEMA,
  SPAWN_SCHEMA,
  TOOL_JOURNAL_SCHEMA,
];

/**
 * The single-counter list session objects used before per-module migrations (17 statements),
 * position by position. Frozen: it describes databases that already exist.
 */
const LEGACY_SESSION_LAYOUT: LegacyLayout = [
  ["session", "create meta"],
  ["session", "create entry"],
  ["session", "create messages"],
  ["session", "create transcripts"],
  ["session", "create idempotency"],
  ["session", "add entry.published_session_id"],
  ["session", "add entry.published_seq"],
  ["runs", "create runs"],
  ["runs", "index runs_by_state"],
  ["timers", "create timers"],
  ["timers", "index timers_by_due"],
  ["runs", "add runs.deferred"],
  ["delivery", "create deliveries"],
  ["delivery", "index deliveries_by_created"],
  ["flows", "create flows"],
  ["flows", "index flows_by_state"],
  ["spawn", "create spawns"],
];

/**
 * A session object's database: the session's own store and each engine's store over the same
 * SQLite (runs and their tool journal, the delivery outbox, agent-to-agent flows, sub-agent
 * spawns; timers open their own over it).
 */
export type SessionDatabase = {
  session: SessionStore;
  runs: RunStore;
  deliveries: DeliveryStore;
  flows: FlowStore;
  spawns: SpawnStore;
  toolJournal: ToolJournal;
};

/** Opens the object's database (every module's schema, migrated) and builds its stores. */
export function openSessionDatabase(storage: DurableObjectStorage): SessionDatabase {
  // A new object (every new session) creates its schema from the baseline, not the history.
  migrate(storage, SESSION_OBJECT_SCHEMAS, LEGACY_SESSION_LAYOUT, SESSION_SCHEMA_BASELINE);
  const sql = storage.sql;
  const runs = new RunStore(sql, () => session.identity()?.sessionKey ?? "");
  const session = new SessionStore(storage, {
    recreateSchemas: () => migrate(storage, SESSION_OBJECT_SCHEMAS, undefined, SESSION_SCHEMA_BASELINE),
    runs,
  });
  return {
    session,
    runs,
    deliveries: new DeliveryStore(sql),
    flows: new FlowStore(sql),
    spawns: new SpawnStore(sql),
    toolJournal: new ToolJournal(sql),
  };
}
