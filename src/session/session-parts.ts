import type { SessionRef } from "../contracts/session-api";
import type { LiveEvent } from "../contracts/tenant-api";
import { Outbox } from "../delivery/outbox";
import { remoteRefusal } from "../domain/errors";
import { A2aFlowDriver, announceToChannel } from "../flows/a2a-flow";
import { installLedgerLogSink } from "../ledger/log-sink";
import { reportUsage, usageEventOf } from "../ledger/usage-event";
import { PendingClaim } from "../pending/pending-sessions";
import { outboundPolicy } from "../policy/outbound-url";
import { RunAdmission } from "../runs/run-admission";
import { RunEvents } from "../runs/run-events";
import { RunExecutor } from "../runs/run-executor";
import { RunLifecycle, WATCHDOG_MS } from "../runs/run-lifecycle";
import { runContext } from "../runs/run-payloads";
import { RunTaps } from "../runs/run-taps";
import { SpawnDriver } from "../spawn/spawn-driver";
import { channelInboxApi, ledgerApi, sessionApi, tenantApi } from "../stubs";
import { type TimerHandlers, Timers } from "../timers/timers";
import { sessionToolbox } from "../tools/session-toolbox";
import { positiveVar } from "../util/deployment-var";
import { Waiters } from "../util/waiters";
import { Followers } from "./followers";
import { COLD_WINDOW_MS } from "./publish-window";
import { Publisher } from "./publisher";
import type { ReplyRoutes } from "./reply-routes";
import { openSessionDatabase, type SessionDatabase } from "./session-database";
import type { SessionStore } from "./session-store";
import { spawnHost } from "./spawn-host";
import { Transcript } from "./transcript";
import { TranscriptQuota } from "./transcript-quota";

/**
 * Retry delay when the tenant could not be reached for an update (armed with every append):
 * past a quiet session's window, so the alarm does not fire while an update waits its turn.
 */
const PUBLISH_RETRY_MS = COLD_WINDOW_MS + 1_000;

/** The collaborators of one session object, wired to each other. */
export type SessionParts = {
  store: SessionStore;
  /** The engines' stores over the same database (runs, deliveries, flows, spawns, tool journal). */
  stores: SessionDatabase;
  timers: Timers;
  transcript: Transcript;
  publisher: Publisher;
  followers: Followers;
  /** Live text of runs for HTTP callers (the OpenAI-compatible routes). */
  runTaps: RunTaps;
  runs: RunLifecycle;
  admission: RunAdmission;
  claims: PendingClaim;
  /** The tenant's transcript byte limits each append is checked against. */
  transcriptQuota: TranscriptQuota;
  /** sessions_wait callers waiting for a message past a seq. */
  seqWaiters: Waiters<{ sessionId: string; afterSeq: number }, boolean>;
  outbox: Outbox;
  flows: A2aFlowDriver;
  spawns: SpawnDriver;
  timerHandlers: TimerHandlers;
};

/**
 * Wires a session object's modules: who calls whom when messages are committed, runs settle,
 * deliveries change, or a sub-agent deletes itself. `self` is the object's own RPC surface,
 * for the steps that go through it (a reset before a run, a sub-agent's delete).
 */
export function wireSession(
  ctx: DurableObjectState,
  env: Env,
  self: {
    reset(ref: SessionRef, reason: "new" | "reset"): Promise<unknown>;
    delete(ref: SessionRef): Promise<boolean>;
  },
  /** Where a run's reply goes besides the transcript, handed in by the worker (src/index.ts). */
  routes: ReplyRoutes,
): SessionParts {
  installLedgerLogSink(env);
  const stores = openSessionDatabase(ctx.storage);
  const store = stores.session;
  const tenant = (tenantId = store.identity()?.tenantId ?? "") => tenantApi(env, tenantId);
  const publisher = new Publisher(store, async (tenantId, update) => tenantApi(env, tenantId).publish(update));
  const timers = new Timers(ctx.storage, () => (publisher.hasPending() ? Date.now() + PUBLISH_RETRY_MS : undefined));
  const seqWaiters = new Waiters<{ sessionId: string; afterSeq: number }, boolean>();
  /** Messages were committed: SSE followers get them now, the tenant in the background. */
  const afterAppend = (sessionId: string, seqs: number[]) => {
    // Still the commit's turn: the retry alarm is written with the messages, so a crash
    // before the publish below cannot leave them undelivered.
    void timers.arm();
    const lastSeq = seqs.at(-1)!;
    // A message past the waited seq, or a new transcript, ends a wait.
    seqWaiters.wakeWhere((w) => w.sessionId !== sessionId || lastSeq > w.afterSeq, true);
    if (followers.size > 0) followers.appended(transcript.appendedRecords(sessionId, seqs));
    publishInBackground(ctx, publisher, timers);
  };
  const runTaps = new RunTaps();
  // What a chat turn's chat shows while its run works (typing, a progress draft): the worker's.
  const chatActivity = routes.chatActivity({
    config: async () => tenant().config(),
    resolve: async (name: string) => tenant().resolveSecret(name),
    outbound: outboundPolicy(env),
    replyTargetOf: (runId) => stores.runs.get(runId)?.input.replyTarget,
    replyDelivery: (runId) => {
      const reply = stores.deliveries.byKey(`${runId}:reply`);
      return !reply ? "none" : reply.status === "pending" ? "pending" : "settled";
    },
    runOfDelivery: (deliveryId) => stores.deliveries.get(deliveryId)?.idempotencyKey.replace(/:reply$/, ""),
    waitUntil: (promise) => ctx.waitUntil(promise),
  });
  const emit = (event: Omit<LiveEvent, "afterSeq">) => {
    runTaps.offer(event);
    for (const watcher of chatActivity) watcher.offer(event);
    const afterSeq = transcript.entry()?.messageCount ?? 0;
    ctx.waitUntil(publisher.emit({ ...event, afterSeq }).catch(() => timers.arm()));
  };
  const transcript = new Transcript(store, afterAppend);
  const claims = new PendingClaim({
    hasEntry: () => transcript.entry() !== null,
    objectName: () => ctx.id.name,
    claim: async (tenantId, key, intent) => {
      const claimed = await tenant(tenantId).claimPendingSession(key, intent);
      // Over the tenant's `sessions` limit: the write that would create the session fails whole.
      if (claimed && "refused" in claimed) throw remoteRefusal(claimed.refused.message, claimed.refused.retryAfterMs);
      return claimed ?? null;
    },
    adopt: (tenantId, key, claimed) => transcript.adopt(tenantId, key, claimed.entry, claimed.version),
  });
  const followers = new Followers(
    (query) => transcript.read(query),
    async (tokenId, sessionKey) => {
      const identity = store.identity();
      return identity ? tenant(identity.tenantId).followWith(tokenId, sessionKey) : false;
    },
  );
  const runs = new RunLifecycle({
    transcript: store,
    runs: stores.runs,
    timers,
    events: new RunEvents(emit, (runId) => {
      const run = stores.runs.get(runId);
      return run ? runContext(run, transcript.entry()?.sessionId) : undefined;
    }),
    executor: new RunExecutor({
      env,
      transcript: store,
      journal: stores.toolJournal,
      toolbox: (run, entry, config) => sessionToolbox(env, run, entry, config),
      runnerSecret: async (tenantId) => tenant(tenantId).runnerSecret(),
      storeSecret: async (tenantId, id) => tenant(tenantId).resolveSecret(id),
      deploymentKeyGrants: async (tenantId) => (await tenant(tenantId).deploymentKeyGrants()).grants,
      tenantConfig: async (tenantId) => tenant(tenantId).config(),
      modelSlot: (tenantId, runId) => tenant(tenantId).acquireModelSlot(runId),
    }),
    appendMessages: (messages, update) => transcript.append(messages, update).map((m) => m.seq),
    updateEntry: (update) => transcript.updateEntry(update),
    sessionId: () => transcript.entry()?.sessionId,
    waitUntil: (promise) => ctx.waitUntil(promise),
    watchdogMs: positiveVar((env as Env & { RUN_WATCHDOG_MS?: string }).RUN_WATCHDOG_MS, WATCHDOG_MS),
    onReply: (run, text) => {
      for (const queueReply of routes.queueReply) queueReply(outbox, run, text);
    },
    onSettled: (runId) => {
      if (!spawns.settled(runId)) flows.runSettled(runId);
      const run = stores.runs.get(runId);
      if (!run) return;
      const event = usageEventOf(run, transcript.entry()?.sessionId, stores.toolJournal.callsByTool(runId));
      reportUsage(ledgerApi(env, run.input.tenantId), event, (promise) => ctx.waitUntil(promise));
    },
  });
  const admission = new RunAdmission({
    transcript: store,
    runs: stores.runs,
    lifecycle: runs,
    entry: () => transcript.entry(),
    ensureEntry: (ref, seed, now) => transcript.ensureEntry(ref, seed, now),
    reset: (ref, reason) => self.reset(ref, reason),
    publish: (reason) => publisher.publish(reason),
    flush: () => publisher.flush(),
    startFlow: (ref, run, flow, now) => flows.startPrimary(ref, run, flow, now),
  });
  const outbox = new Outbox({
    store: stores.deliveries,
    timers,
    logContext: () => ({ tenant: store.identity()?.tenantId, session: store.identity()?.sessionKey }),
    entry: () => transcript.entry(),
    tenantConfig: async () => tenant().config(),
    signingSecret: async () => tenant().runnerSecret(),
    outbound: () => outboundPolicy(env),
    channelSender: (channel, config) =>
      routes.channelSender(channel, config, async (name) => tenant().resolveSecret(name), outboundPolicy(env), {
        reference: async (name, id) =>
          channelInboxApi(env, store.identity()?.tenantId ?? "").conversationReference(name, id),
      }),
    channelSendResult: async (channel, result) =>
      channelInboxApi(env, store.identity()?.tenantId ?? "").recordSend(channel, result),
    emit,
  });
  const flows = new A2aFlowDriver({
    store: stores.flows,
    timers,
    runs,
    session: (tenantId, key) => sessionApi(env, tenantId, key),
    tenant: (tenantId) => tenantApi(env, tenantId),
    announce: (flow, reply) => announceToChannel(outbox, transcript.entry(), flow, reply),
    waitUntil: (promise) => ctx.waitUntil(promise),
  });
  const spawns = new SpawnDriver(
    spawnHost({
      env,
      store,
      spawnStore: stores.spawns,
      timers,
      transcript,
      runs,
      publisher,
      deleteSession: (ref) => self.delete(ref),
    }),
  );
  const timerHandlers: TimerHandlers = {
    "run-release": (runId) => runs.release(runId),
    "run-timeout": (runId, now) => runs.onTimeout(runId, now),
    "run-watchdog": (runId, now) => runs.watchdog(runId, now),
    delivery: (deliveryId, now) => outbox.attempt(deliveryId, now),
    flow: (flowId) => flows.advance(flowId),
    "spawn-announce": (runId, now) => spawns.announce(runId, now),
    "spawn-archive": (runId, now) => spawns.archive(runId, now),
  };
  return {
    store,
    stores,
    timers,
    transcript,
    publisher,
    followers,
    runTaps,
    runs,
    admission,
    claims,
    transcriptQuota: new TranscriptQuota(
      async (tenantId) => tenant(tenantId).transcriptLimits(),
      (promise) => ctx.waitUntil(promise),
    ),
    seqWaiters,
    outbox,
    flows,
    spawns,
    timerHandlers,
  };
}

/**
 * Work a crash or eviction left behind is re-armed on every start: jobs a dead instance was
 * running, deliveries/flows/spawn steps without a timer, unpublished changes, orphaned runs.
 */
export function recoverSession(ctx: DurableObjectState, parts: SessionParts): void {
  if (!parts.store.identity()) return;
  parts.timers.recoverLeases();
  parts.runs.recover();
  parts.outbox.reconcile();
  parts.flows.reconcile();
  parts.spawns.reconcile();
  if (parts.publisher.hasPending()) publishInBackground(ctx, parts.publisher, parts.timers);
}

/**
 * The object's one alarm: due timers, and the retry of anything unpublished alongside them
 * (never behind a slow job), including a row only a caller delivered (forgetHandOff).
 */
export async function runAlarm(parts: SessionParts): Promise<void> {
  parts.publisher.forgetHandOff();
  const publish = parts.publisher.hasPending() ? parts.publisher.publish().catch(() => undefined) : undefined;
  await Promise.all([parts.timers.fire(parts.timerHandlers), publish]);
  await parts.timers.arm();
}

/**
 * Publishes in the background (appends): the caller does not wait for the tenant. The
 * retry alarm is armed first, so an eviction mid-publish still delivers the change.
 */
function publishInBackground(ctx: DurableObjectState, publisher: Publisher, timers: Timers): void {
  ctx.waitUntil(
    publisher.publish().catch((error) => {
      console.error("SessionObject: publish failed; the alarm retries it", error);
      return timers.arm();
    }),
  );
}
