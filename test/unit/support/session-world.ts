import type { LiveEvent } from "../../../src/contracts/tenant-api";
import type { RunRecord } from "../../../src/model/run-types";
import type { TranscriptMessage } from "../../../src/protocol/session";
import { RunEvents } from "../../../src/runs/run-events";
import type { ExecuteControls } from "../../../src/runs/run-executor";
import { type EngineStart, RunLifecycle } from "../../../src/runs/run-lifecycle";
import { runContext } from "../../../src/runs/run-payloads";
import type { RunnerOutcome } from "../../../src/runs/runners/runner";
import { openSessionDatabase } from "../../../src/session/session-database";
import { Transcript } from "../../../src/session/transcript";
import { type TimerHandlers, Timers } from "../../../src/timers/timers";
import { MemoryStorage } from "./memory-storage";

/**
 * One session object's engines wired as src/session/session-parts.ts wires them (the real
 * SessionStore, Transcript, Timers, RunEvents and RunLifecycle over an in-memory SQLite), with
 * the model as a script and the tenant as a list of the events it would get. `restart()` is a
 * new instance on the same storage: what was in memory (live runners, waiters) is gone.
 */

export const TENANT = "t1";
export const SESSION_KEY = "agent:main:main";
export const REF = { tenantId: TENANT, key: SESSION_KEY, agentId: "main" };

/** One attempt of a run: what the model does with it (stream text, reply, fail, hang). */
export type ModelScript = (run: RunRecord, controls: ExecuteControls) => Promise<RunnerOutcome>;

export type SessionInstance = ReturnType<typeof instance>;

/** What a test wires beside the lifecycle (as session-parts wires flows and spawns). */
type Extras = {
  /** A run reached a terminal state (after it is recorded in `settled`). */
  onSettled?: (runId: string, session: SessionInstance) => void;
  /** Handlers of the timer kinds the lifecycle does not own. */
  handlers?: (session: SessionInstance) => Partial<TimerHandlers>;
  /** The watchdog's period (the RUN_WATCHDOG_MS var), else the lifecycle's default. */
  watchdogMs?: number;
};

type Shared = Extras & {
  storage: MemoryStorage;
  model: ModelScript;
  events: Array<Omit<LiveEvent, "afterSeq">>;
  settled: string[];
};

export function sessionWorld(model: ModelScript, extras: Extras = {}) {
  const storage = new MemoryStorage();
  const shared: Shared = { ...extras, storage, model, events: [], settled: [] };
  const world = { ...shared, session: instance(shared) };
  return Object.assign(world, {
    /** The object restarted (eviction, crash): a fresh instance on the same database. */
    restart(): SessionInstance {
      world.session = instance(shared);
      return world.session;
    },
  });
}

function instance(shared: Shared) {
  const { storage } = shared;
  const stores = openSessionDatabase(storage.asStorage);
  const store = stores.session;
  const timers = new Timers(storage.asStorage);
  const transcript = new Transcript(store, () => {});
  const background: Promise<unknown>[] = [];
  /** Attempts this instance started, by run id (a restarted run runs again in the new one). */
  const attempts: string[] = [];
  const lifecycle = new RunLifecycle({
    transcript: store,
    runs: stores.runs,
    timers,
    events: new RunEvents(
      (event) => shared.events.push(event),
      (runId) => {
        const run = stores.runs.get(runId);
        return run ? runContext(run, transcript.entry()?.sessionId) : undefined;
      },
    ),
    executor: {
      execute: (run, controls) => {
        attempts.push(run.runId);
        return shared.model(run, controls);
      },
    },
    appendMessages: (messages, update) => transcript.append(messages, update).map((m) => m.seq),
    updateEntry: (update) => transcript.updateEntry(update),
    sessionId: () => transcript.entry()?.sessionId,
    waitUntil: (promise) => void background.push(promise),
    watchdogMs: shared.watchdogMs,
    onSettled: (runId) => {
      shared.settled.push(runId);
      shared.onSettled?.(runId, self);
    },
  });
  const lifecycleHandlers: TimerHandlers = {
    "run-release": (runId) => lifecycle.release(runId),
    "run-timeout": (runId, now) => lifecycle.onTimeout(runId, now),
    "run-watchdog": (runId, now) => lifecycle.watchdog(runId, now),
    delivery: () => {},
    flow: () => {},
    "spawn-announce": () => {},
    "spawn-archive": () => {},
  };
  transcript.ensureEntry(REF, undefined, Date.now());
  const self = {
    store,
    stores,
    timers,
    transcript,
    lifecycle,
    attempts,
    /** Starts a run with a user message, as admission does. */
    start(runId: string, message: string, extra: Partial<EngineStart> = {}) {
      const userMessage: TranscriptMessage = { role: "user", content: message, timestamp: Date.now() };
      return lifecycle.start({
        runId,
        input: { message, origin: "chat.send" },
        runner: { type: "echo" },
        userMessage,
        tenantId: TENANT,
        agentId: "main",
        ...extra,
      });
    },
    /** The object's alarm: every due timer through its handler. */
    alarm: (now = Date.now()) => timers.fire({ ...lifecycleHandlers, ...shared.handlers?.(self) }, now),
    /** As after a restart (src/session/session-parts.ts recoverSession). */
    recover() {
      timers.recoverLeases();
      lifecycle.recover();
    },
    /** Transcript messages as role and text. */
    messages(): Array<{ role: string; text: string; stopReason?: string }> {
      const page = store.tail({
        sessionId: transcript.entry()!.sessionId,
        limit: 100,
        includeTools: true,
        maxBytes: 1_000_000,
      });
      return page.messages.map((record) => {
        const message = JSON.parse(record.json) as TranscriptMessage & { stopReason?: string };
        const text = typeof message.content === "string" ? message.content : JSON.stringify(message.content);
        return { role: message.role, text, ...(message.stopReason ? { stopReason: message.stopReason } : {}) };
      });
    },
  };
  return self;
}

/** A promise with its resolve handle (a model call the test lets finish). */
export function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Lets every queued microtask and settled promise run. */
export const settle = () => new Promise((resolve) => setImmediate(resolve));

/** A plain reply outcome. */
export const reply = (text: string): RunnerOutcome => ({ kind: "reply", text, stopReason: "stop" });
