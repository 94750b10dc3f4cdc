import type { TenantContext } from "../../domain/context";
import { DomainError } from "../../domain/errors";
import { startChatCommandRun, startRun } from "../../domain/runs";
import type { DeliveryTarget, ReplyHint } from "../../model/delivery";
import { logInfo, logWarning } from "../../observability/log";
import type { TenantConfig } from "../../protocol/config";
import { positiveVar } from "../../util/deployment-var";
import {
  type ChannelAck,
  type ChannelTurn,
  type InboundAdapter,
  PAIRING_KIND,
  type PairingAsk,
  type PlatformAnswer,
} from "./adapter";
import { channelCommand, turnSpeaker } from "./chat-command-turn";
import type { DebounceStore } from "./debounce-store";
import type { GroupHistoryPort } from "./group-history-store";
import { type MediaPorts, prepareMedia } from "./inbound-media";
import { InboxBursts } from "./inbox-bursts";
import { InboxLanes } from "./inbox-lanes";
import { type InboxStore, type InboxUpdate, PAIRING_PENDING_MAX, startingKey } from "./inbox-store";
import { modelTurn } from "./turn-context";

/** An update that keeps failing is given up after this many attempts (it would block the ones behind it). */
export const MAX_UPDATE_ATTEMPTS = 8;
/**
 * Turn starts (of different sessions) queued or running at once (src/features/channels/inbox-lanes.ts)
 * unless the deployment sets CHANNEL_INBOX_LANES ("1": one at a time). Each start waits on the
 * platform (the typing call) and on two objects (admission, the session). On a quiet `wrangler dev`
 * 8 answered the 400-DM burst 3× sooner than one at a time (every reply 17 s against 52 s) with its
 * webhook POSTs acknowledged in 3.6 s against 2.2 s (docs/channels.md "A busy bot"); where each
 * object has its own thread the acknowledgements share the inbox only with the lanes' awaits.
 */
export const INBOX_LANES = 8;

/** The lanes of a deployment: CHANNEL_INBOX_LANES (wrangler `[vars]`, e.g. "8"), else INBOX_LANES. */
export function inboxLanes(env: Partial<Pick<Env, "DEFAULT_TENANT">> & { CHANNEL_INBOX_LANES?: string }): number {
  return Math.floor(positiveVar(env.CHANNEL_INBOX_LANES, INBOX_LANES)) || 1;
}
/** Pairing codes: 8 characters of [A-Z0-9] (OpenClaw's). */
const PAIRING_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const PAIRING_CODE_CHARS = 8;

export type InboxPorts = {
  store: InboxStore;
  transaction<T>(fn: () => T): T;
  tenantId: string;
  config(): Promise<TenantConfig>;
  /** The platforms by channel name (an update of another channel is dropped). */
  adapters: Readonly<Record<string, InboundAdapter>>;
  /** A context to start runs in, for the origin the update came in on. */
  context(config: TenantConfig, origin: string | null): TenantContext;
  /** Queues a message through the inbox's own outbox (pairing codes). */
  enqueue(input: {
    idempotencyKey: string;
    kind: string;
    target: DeliveryTarget;
    message: string;
    blocks?: Record<string, unknown>[];
    replyHint?: ReplyHint;
  }): void;
  /** Recent unmentioned group messages (src/features/channels/group-history-store.ts). */
  groupHistory?: GroupHistoryPort;
  /** Bursts held for their debounce window (src/features/channels/debounce-store.ts). */
  bursts: DebounceStore;
  /** Turn starts queued or running at once (INBOX_LANES unless the deployment sets CHANNEL_INBOX_LANES). */
  lanes?: number;
  /** Wakes the drain at this time (a held burst's window end); the object's one alarm. */
  wakeAt?(at: number): void;
  /** Where a turn's files are fetched to (the ATTACHMENTS bucket); absent: files are described only. */
  media?: MediaPorts;
  /** A platform call of an update's handling failed (a refused bot token: getMe, auth.test), for the channel's status. */
  platformFailure?(channel: string, error: string): Promise<void>;
};

/**
 * Turns the accepted updates into turns: decided one at a time in arrival order, each turn
 * started in its session's lane (src/features/channels/inbox-lanes.ts: sessions side by side,
 * each in order). Each step is idempotent, so the drain may stop anywhere (a crash) and run
 * again: the run id is derived from the update id (a run started before the crash is found, not
 * started twice), a pairing request and its message are written with the update's completion,
 * and the typing acknowledgement is recorded before it is sent.
 */
export class ChannelInbox {
  private readonly bursts: InboxBursts;
  private readonly lanes: InboxLanes;
  /** Updates whose turn is queued or starting in a lane: still pending in the store, not decided again. */
  private readonly starting = new Set<string>();

  constructor(private readonly ports: InboxPorts) {
    this.lanes = new InboxLanes(ports.lanes ?? INBOX_LANES);
    this.bursts = new InboxBursts(ports, (updates, turn, config) => this.startInLane(updates, turn, config));
  }

  /** Handles every pending update; throws (the timer retries) when one failed for a passing reason. */
  async drain(): Promise<void> {
    try {
      for (;;) {
        while (!this.lanes.failed) {
          const update = this.ports.store.nextPendingBut(this.starting);
          if (update) await this.attempt([update], () => this.handle(update));
          else if (this.lanes.busy) await this.lanes.oneSettled();
          else break;
        }
        const nextBurstAt = this.lanes.failed ? undefined : await this.bursts.flushDue(this.ports.config, Date.now());
        await this.lanes.settle();
        // Checked and scheduled in one synchronous step: an update accepted meanwhile is drained now.
        if (this.ports.store.hasPending()) continue;
        if (nextBurstAt !== undefined) this.ports.wakeAt?.(nextBurstAt);
        return;
      }
    } catch (error) {
      // The starts already in flight end before the retry decides their updates again.
      await this.lanes.settle().catch(() => undefined);
      throw error;
    }
  }

  /** Starts a turn in its session's lane; its updates are not decided again meanwhile. */
  private startInLane(updates: InboxUpdate[], turn: ChannelTurn, config: TenantConfig): Promise<void> {
    const keys = updates.map((update) => startingKey(update.channel, update.updateId));
    for (const key of keys) this.starting.add(key);
    return this.lanes.add(
      turn.sessionKey,
      () => this.attempt(updates, () => this.turn(updates, turn, config)),
      () => {
        for (const key of keys) this.starting.delete(key);
      },
    );
  }

  /** Runs an update's (or a burst's) handling; a failure is retried, up to MAX_UPDATE_ATTEMPTS. */
  private async attempt(updates: InboxUpdate[], work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      const update = updates[0]!;
      this.ports.store.countAttempt(update.channel, update.updateId);
      await this.ports.platformFailure?.(update.channel, (error as Error).message).catch(() => undefined);
      if (update.attempts + 1 < MAX_UPDATE_ATTEMPTS) throw error;
      logWarning("channel.update_failed", {
        tenant: this.ports.tenantId,
        channel: update.channel,
        update: update.updateId,
        error: (error as Error).message,
      });
      this.ports.transaction(() => {
        for (const failed of updates) this.finish(failed, `failed: ${(error as Error).message}`);
      });
    }
  }

  private async handle(update: InboxUpdate): Promise<void> {
    const adapter = this.ports.adapters[update.channel];
    if (!adapter) return this.finish(update, "ignored: unknown channel");
    const config = await this.ports.config();
    const approved = this.ports.store.approvedSenders(update.channel);
    const decision = await adapter.decide({ body: update.body, config, approved });
    if (!decision) return this.finish(update, "ignored: channel not configured");
    if (decision.action === "ignore") {
      // Written with the update's completion: a crash between them keeps neither.
      return this.ports.transaction(() => {
        if (decision.history) this.ports.groupHistory?.record(decision.history.chatKey, decision.history.line);
        this.finish(update, `ignored: ${decision.reason}`);
      });
    }
    if (decision.action === "pairing") return this.pairing(update, decision.ask, adapter);
    if (decision.action === "answer") return this.answer(update, decision.answer, adapter, config);
    if (await this.bursts.hold(update, decision.turn, config)) return;
    await this.startInLane([update], decision.turn, config);
  }

  /**
   * First message of an unknown sender: one code, sent once; later messages are silent. Past
   * PAIRING_PENDING_MAX pending requests of the channel, a new sender is ignored as OpenClaw
   * ignores it (no request, no code message) until a request expires or is approved.
   */
  private pairing(update: InboxUpdate, ask: PairingAsk, adapter: InboundAdapter): void {
    const { store } = this.ports;
    const now = Date.now();
    this.ports.transaction(() => {
      if (store.pairingOf(update.channel, ask.senderId, now)) {
        store.touchPairing(update.channel, ask.senderId, now);
      } else if (store.pendingPairings(update.channel, now).length >= PAIRING_PENDING_MAX) {
        return this.finish(update, "ignored: pending pairing requests full");
      } else {
        const code = pairingCode();
        store.addPairing(update.channel, { ...ask, code }, now);
        this.ports.enqueue({
          idempotencyKey: `pairing:${update.channel}:${ask.senderId}`,
          kind: PAIRING_KIND,
          target: { channel: update.channel, to: ask.chatId },
          message: adapter.pairingMessage(ask.senderId, code),
          ...(ask.replyHint ? { replyHint: ask.replyHint } : {}),
        });
      }
      this.finish(update, "pairing");
    });
  }

  /**
   * An update the platform answers without a turn: acknowledged (recorded first, as a turn's is),
   * then its message queued with the update's completion, so a crash or a repeat sends it once.
   */
  private async answer(update: InboxUpdate, answer: PlatformAnswer, adapter: InboundAdapter, config: TenantConfig) {
    await this.acknowledgeOnce(update, adapter, config, answer.ack);
    const delivery = answer.delivery;
    this.ports.transaction(() => {
      if (delivery) this.ports.enqueue({ idempotencyKey: `answer:${update.channel}:${update.updateId}`, ...delivery });
      this.finish(update, delivery ? `answered: ${delivery.kind}` : "answered");
    });
  }

  /** The turn of one update, or of a burst's updates (one run, its id derived from the first update). */
  private async turn(updates: InboxUpdate[], turn: ChannelTurn, config: TenantConfig) {
    const update = updates[0]!;
    const adapter = this.ports.adapters[update.channel];
    if (!adapter) return this.finishAll(updates, "ignored: unknown channel");
    await this.acknowledgeOnce(update, adapter, config, turn.ack);
    const runId = turnRunId(update.channel, update.updateId);
    // Files are fetched before the run (a repeat after a crash finds them stored: src/features/channels/inbound-media.ts).
    const source = turn.media?.length && this.ports.media ? ((await adapter.mediaSource?.(config)) ?? null) : null;
    const files = this.ports.media ? await prepareMedia(this.ports.media, source, turn, update) : null;
    const told = modelTurn(files ? { ...turn, text: files.modelText } : turn, this.ports.groupHistory);
    try {
      const ctx = this.ports.context(config, update.origin);
      const request = {
        key: turn.sessionKey,
        runId,
        message: files?.transcriptText ?? turn.text,
        origin: "agent" as const,
        provenance: { kind: "external_user" as const, sourceChannel: turn.replyTarget.channel },
        seed: turn.seed,
        replyTarget: turn.replyTarget,
        ...(turn.replyHint ? { replyHint: turn.replyHint } : {}),
        ...(told.modelMessages ? { modelMessages: told.modelMessages } : {}),
        ...(files?.media.length ? { media: files.media } : {}),
        ...(turn.rowFields ? { routeFields: turn.rowFields } : {}),
      };
      // A command is a run with a fixed reply (same run id: answered once, through the outbox).
      const command = channelCommand(turn.text);
      const result = command
        ? await startChatCommandRun(ctx, command, request, turnSpeaker(turn))
        : await startRun(ctx, request);
      logInfo("channel.turn", {
        tenant: this.ports.tenantId,
        channel: update.channel,
        update: update.updateId,
        session: turn.sessionKey,
        status: result.status,
      });
      this.ports.transaction(() => {
        told.consumed();
        for (const member of updates) this.finish(member, `turn ${runId}`);
      });
    } catch (error) {
      // Refusals (send policy, size) end the update; anything else is retried.
      if (error instanceof DomainError) return this.finishAll(updates, `refused: ${error.message}`);
      throw error;
    }
  }

  /** The platform's acknowledgement, recorded before it is sent: a crash repeats what follows, never it. */
  private async acknowledgeOnce(update: InboxUpdate, adapter: InboundAdapter, config: TenantConfig, ack: ChannelAck) {
    if (update.acked) return;
    // Recorded before it is sent: a crash repeats the turn's start, never the typing. A burst's
    // seal has recorded it already (inbox-bursts.ts), in the same row write.
    if (!update.ackRecorded) this.ports.store.markAcked(update.channel, update.updateId);
    await adapter.acknowledge(config, ack);
  }

  private finishAll(updates: InboxUpdate[], outcome: string): void {
    this.ports.transaction(() => {
      for (const update of updates) this.finish(update, outcome);
    });
  }

  /** A held update leaves its burst with this too (its burst columns are on its row: debounce-store.ts). */
  private finish(update: InboxUpdate, outcome: string): void {
    this.ports.store.finish(update.channel, update.updateId, outcome, Date.now());
  }
}

/**
 * The run of an update's turn: derived from the update alone, so handling the update again
 * (after a crash, a redelivery that slipped past the inbox) finds the run instead of starting one.
 */
export function turnRunId(channel: string, updateId: string): string {
  return `${channel}:${updateId}`;
}

export function pairingCode(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(PAIRING_CODE_CHARS));
  return Array.from(bytes, (b) => PAIRING_ALPHABET[b % PAIRING_ALPHABET.length]).join("");
}
