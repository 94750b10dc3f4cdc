import { DurableObject } from "cloudflare:workers";
import { DELIVERY_SCHEMA, DeliveryStore } from "../../delivery/delivery-store";
import { Outbox } from "../../delivery/outbox";
import { mediaBytesLeft } from "../../domain/media-quota";
import { attachmentsOf } from "../../metering/metered-env";
import { logWarning } from "../../observability/log";
import { outboundPolicy } from "../../policy/outbound-url";
import { redactCredentials } from "../../secrets/redact-credentials";
import { migrate } from "../../storage/migrations";
import { tenantApi, tenantContext } from "../../stubs";
import { TIMER_SCHEMA } from "../../timers/timer-schema";
import { TIMER_RETRY_MS, type TimerKind, type TimerPort, Timers } from "../../timers/timers";
import { BOT_MESSAGES_SCHEMA, BotMessagesStore } from "./bot-messages-store";
import type { ChannelInboxApi } from "./channel-inbox-api";
import { channelCredentials } from "./channel-registry";
import { CONVERSATION_REFERENCE_SCHEMA, ConversationReferenceStore } from "./conversation-reference-store";
import { DEBOUNCE_SCHEMA, DebounceStore } from "./debounce-store";
import { GROUP_HISTORY_SCHEMA, GroupHistoryStore } from "./group-history-store";
import { MEDIA_WARNING_KIND, mediaMaxBytes } from "./inbound-media";
import { ChannelInbox, inboxLanes } from "./inbox";
import { InboxDrainSchedule } from "./inbox-drain";
import { INBOX_SCHEMA, InboxStore } from "./inbox-store";
import { channelSenderOf, inboundAdapters } from "./platforms";
import { type ChannelSendResult, isAuthFailure } from "./send-health";
import { SEND_HEALTH_SCHEMA, SendHealthStore } from "./send-health-store";
import { BOT_THREADS_SCHEMA, BotThreadsStore } from "./slack/bot-threads-store";

type InboxTimer = "channel-inbox" | "delivery";
/**
 * The drain's timer ref: only a drain that failed is retried through the timer table (an accepted
 * update schedules the drain in memory: inbox-drain.ts).
 */
const DRAIN = "drain";

/**
 * A tenant's channel inbox (one per tenant, named by its id): accepted chat updates are
 * committed here before the platform gets its 200, then drained into turns by the object's
 * alarm (src/features/channels/inbox.ts); pairing requests and their code messages (its own outbox).
 * Wiring and RPC methods only.
 */
export class ChannelInboxObject extends DurableObject<Env> implements ChannelInboxApi {
  private readonly store: InboxStore;
  private readonly timers: Timers<InboxTimer>;
  private readonly drains = new InboxDrainSchedule();
  private readonly outbox: Outbox;
  private readonly inbox: ChannelInbox;
  private readonly sendHealth: SendHealthStore;
  private readonly credentials: (channel: string) => Promise<string[]>;
  private readonly conversations: ConversationReferenceStore;
  private readonly botMessages: BotMessagesStore;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    migrate(ctx.storage, [
      INBOX_SCHEMA,
      TIMER_SCHEMA,
      DELIVERY_SCHEMA,
      SEND_HEALTH_SCHEMA,
      GROUP_HISTORY_SCHEMA,
      CONVERSATION_REFERENCE_SCHEMA,
      BOT_THREADS_SCHEMA,
      DEBOUNCE_SCHEMA,
      BOT_MESSAGES_SCHEMA,
    ]);
    this.store = new InboxStore(ctx.storage.sql);
    this.sendHealth = new SendHealthStore(ctx.storage.sql);
    this.conversations = new ConversationReferenceStore(ctx.storage.sql);
    this.botMessages = new BotMessagesStore(ctx.storage.sql);
    this.timers = new Timers<InboxTimer>(ctx.storage, () => this.drains.next());
    const tenantId = ctx.id.name ?? "";
    const tenant = () => tenantApi(env, tenantId);
    const resolve = async (name: string) => tenant().resolveSecret(name);
    this.credentials = async (channel) => channelCredentials(await tenant().config(), channel, resolve);
    this.outbox = new Outbox({
      store: new DeliveryStore(ctx.storage.sql),
      timers: this.timers as unknown as TimerPort<TimerKind>,
      entry: () => null,
      tenantConfig: async () => tenant().config(),
      signingSecret: async () => tenant().runnerSecret(),
      outbound: () => outboundPolicy(env),
      channelSender: (channel, config) =>
        channelSenderOf(channel, config, resolve, outboundPolicy(env), this.conversations),
      channelSendResult: (channel, result) => this.recordSend(channel, result),
      emit: () => undefined,
      logContext: () => ({ tenant: tenantId }),
    });
    this.inbox = new ChannelInbox({
      store: this.store,
      groupHistory: new GroupHistoryStore(ctx.storage.sql),
      bursts: new DebounceStore(ctx.storage.sql),
      wakeAt: (at) => this.drains.at(at),
      lanes: inboxLanes(env),
      transaction: (fn) => ctx.storage.transactionSync(fn),
      tenantId,
      config: async () => tenant().config(),
      adapters: inboundAdapters({
        resolve,
        outbound: outboundPolicy(env),
        identity: <T>(channel: string) => ({
          get: () => this.store.bot<T>(channel),
          save: (bot: T) => this.store.saveBot(channel, bot),
        }),
        conversations: this.conversations,
        botThreads: new BotThreadsStore(ctx.storage.sql),
        botMessages: this.botMessages,
      }),
      context: (config, origin) =>
        tenantContext(env, {
          tenantId,
          config,
          principal: { kind: "operator", scopes: ["operator.write"] },
          ...(origin ? { requestUrl: origin } : {}),
        }),
      enqueue: (input) => this.outbox.enqueue(input),
      media: {
        bucket: attachmentsOf(env),
        tenantId,
        outbound: outboundPolicy(env),
        maxBytes: async (channel) =>
          mediaMaxBytes((await tenant().limits()).limits.mediaBytesPerFile.limit, await tenant().config(), channel),
        tenantBytesLeft: async () =>
          mediaBytesLeft(attachmentsOf(env), tenantId, (await tenant().limits()).limits.mediaBytesPerTenant.limit),
        warn: ({ idempotencyKey, target, message }) =>
          this.outbox.enqueue({ idempotencyKey, kind: MEDIA_WARNING_KIND, target, message }),
        log: logWarning,
      },
      // An update's handling fails for many reasons; only a refused token says something of the account.
      platformFailure: async (channel, error) =>
        isAuthFailure(channel, error) ? this.recordSend(channel, { ok: false, error }) : undefined,
    });
    ctx.blockConcurrencyWhile(async () => {
      this.timers.recoverLeases();
      this.outbox.reconcile();
      if (this.store.hasOpen()) this.drains.at(Date.now());
      await this.timers.arm();
    });
  }

  async accept(channel: string, updateId: string, body: string, origin: string | null) {
    const now = Date.now();
    const fresh = this.store.accept(channel, updateId, body, origin, now);
    if (!fresh) return { duplicate: true };
    this.drains.at(now);
    // The alarm is written in this turn too, so it commits with the update.
    await this.timers.arm();
    return { duplicate: false };
  }

  pairingList(channel: string) {
    return this.store.pendingPairings(channel, Date.now());
  }

  pairingApprove(channel: string, code: string) {
    return this.store.approve(channel, code, Date.now());
  }

  status(channel: string) {
    const pairingPending = this.store.pendingPairings(channel, Date.now()).length;
    return { ...this.store.counts(channel), pairingPending, sendHealth: this.sendHealth.get(channel) };
  }

  /** Kept redacted of the channel's credentials: operator.read tokens see it in channels.status. */
  async recordSend(channel: string, result: ChannelSendResult): Promise<void> {
    const kept = result.ok
      ? result
      : { ok: false as const, error: redactCredentials(result.error, await this.credentials(channel).catch(() => [])) };
    this.sendHealth.record(channel, kept, Date.now());
    if (result.ok && result.sentMessageIds) this.botMessages.note(channel, result.sentMessageIds, Date.now());
  }

  conversationReference(channel: string, conversationId: string) {
    return this.conversations.reference(channel, conversationId);
  }

  override async alarm(): Promise<void> {
    const drain = () => this.inbox.drain();
    const drainDue = this.drains.takeDue(Date.now());
    await Promise.all([
      drainDue ? this.drains.once(drain).catch((error: unknown) => this.drainFailed(error)) : undefined,
      this.timers.fire({
        "channel-inbox": () => this.drains.once(drain),
        delivery: (id, now) => this.outbox.attempt(id, now),
      }),
    ]);
    await this.timers.arm();
  }

  /** A failed drain is retried by the timer table, with its backoff from then on. */
  private drainFailed(error: unknown): void {
    console.error(`channel inbox: drain failed; retrying in ${TIMER_RETRY_MS} ms`, error);
    this.timers.set("channel-inbox", DRAIN, Date.now() + TIMER_RETRY_MS);
  }
}
