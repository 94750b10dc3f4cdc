import type { TenantContext } from "../domain/context";
import { DomainError } from "../domain/errors";
import { startRun } from "../domain/runs";
import { logInfo, logWarning } from "../observability/log";
import { defaultAgentId } from "../policy/agents";
import { slackEnvelopeSchema, telegramUpdateSchema } from "../protocol/channels";
import type { TenantConfig } from "../protocol/config";
import { type ChannelAck, type ChannelTurn, type InboundDecision, PAIRING_KIND, type PairingAsk } from "./adapter";
import type { InboxStore, InboxUpdate } from "./inbox-store";
import { slackPairingMessage } from "./slack/format";
import { decideSlack, SLACK } from "./slack/routing";
import type { CachedSlackIdentity, SlackWebApi } from "./slack/web-api";
import type { TelegramBotApi } from "./telegram/bot-api";
import { pairingMessage } from "./telegram/format";
import { type BotIdentity, decideTelegram, TELEGRAM } from "./telegram/routing";

/** An update that keeps failing is given up after this many attempts (it would block the ones behind it). */
export const MAX_UPDATE_ATTEMPTS = 8;
/** Pairing codes: 8 characters of [A-Z0-9] (OpenClaw's). */
const PAIRING_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const PAIRING_CODE_CHARS = 8;

export type InboxPorts = {
  store: InboxStore;
  transaction<T>(fn: () => T): T;
  tenantId: string;
  config(): Promise<TenantConfig>;
  telegramBot(config: TenantConfig): Promise<TelegramBotApi | null>;
  slackApi(config: TenantConfig): Promise<SlackWebApi | null>;
  /** A context to start runs in, for the origin the update came in on. */
  context(config: TenantConfig, origin: string | null): TenantContext;
  /** Queues a message through the inbox's own outbox (pairing codes). */
  enqueue(input: {
    idempotencyKey: string;
    kind: string;
    target: { channel: string; to: string };
    message: string;
  }): void;
};

/**
 * Turns the accepted updates into turns, one at a time in arrival order. Each step is
 * idempotent, so the drain may stop anywhere (a crash) and run again: the run id is derived
 * from the update id (a run started before the crash is found, not started twice), a pairing
 * request and its message are written with the update's completion, and the typing
 * acknowledgement is recorded before it is sent.
 */
export class ChannelInbox {
  constructor(private readonly ports: InboxPorts) {}

  /** Handles every pending update; throws (the timer retries) when one failed for a passing reason. */
  async drain(): Promise<void> {
    for (let update = this.ports.store.nextPending(); update; update = this.ports.store.nextPending()) {
      try {
        await this.handle(update);
      } catch (error) {
        this.ports.store.countAttempt(update.channel, update.updateId);
        if (update.attempts + 1 < MAX_UPDATE_ATTEMPTS) throw error;
        logWarning("channel.update_failed", {
          tenant: this.ports.tenantId,
          channel: update.channel,
          update: update.updateId,
          error: (error as Error).message,
        });
        this.finish(update, `failed: ${(error as Error).message}`);
      }
    }
  }

  private async handle(update: InboxUpdate): Promise<void> {
    if (update.channel === SLACK) return this.handleSlack(update);
    if (update.channel !== TELEGRAM) return this.finish(update, "ignored: unknown channel");
    const config = await this.ports.config();
    const telegram = config.channels?.telegram;
    const bot = telegram ? await this.ports.telegramBot(config) : null;
    if (!telegram || !bot) return this.finish(update, "ignored: channel not configured");
    const identity = await this.botIdentity(bot);
    const parsed = telegramUpdateSchema.safeParse(JSON.parse(update.body));
    if (!parsed.success) return this.finish(update, "ignored: not an update");
    const decision: InboundDecision = decideTelegram({
      update: parsed.data,
      telegram,
      config,
      agentId: defaultAgentId(config),
      bot: identity,
      approved: this.ports.store.approvedSenders(TELEGRAM),
    });
    if (decision.action === "ignore") return this.finish(update, `ignored: ${decision.reason}`);
    if (decision.action === "pairing") return this.pairing(update, decision.ask, pairingMessage);
    await this.turn(update, decision.turn, config, (ack) => bot.acknowledge(ack));
  }

  private async handleSlack(update: InboxUpdate): Promise<void> {
    const config = await this.ports.config();
    const slack = config.channels?.slack;
    const api = slack ? await this.ports.slackApi(config) : null;
    if (!slack || !api) return this.finish(update, "ignored: channel not configured");
    const parsed = slackEnvelopeSchema.safeParse(JSON.parse(update.body));
    if (!parsed.success) return this.finish(update, "ignored: not an event");
    const decision = decideSlack({
      envelope: parsed.data,
      slack,
      config,
      agentId: defaultAgentId(config),
      bot: await this.slackIdentity(api),
      approved: this.ports.store.approvedSenders(SLACK),
    });
    if (decision.action === "ignore") return this.finish(update, `ignored: ${decision.reason}`);
    if (decision.action === "pairing") return this.pairing(update, decision.ask, slackPairingMessage);
    await this.turn(update, decision.turn, config, (ack) => api.acknowledge(ack));
  }

  /** First message of an unknown sender: one code, sent once; later messages are silent. */
  private pairing(update: InboxUpdate, ask: PairingAsk, message: (senderId: string, code: string) => string): void {
    const { store } = this.ports;
    const now = Date.now();
    this.ports.transaction(() => {
      if (store.pairingOf(update.channel, ask.senderId, now)) {
        store.touchPairing(update.channel, ask.senderId, now);
      } else {
        const code = pairingCode();
        store.addPairing(update.channel, { ...ask, code }, now);
        this.ports.enqueue({
          idempotencyKey: `pairing:${update.channel}:${ask.senderId}`,
          kind: PAIRING_KIND,
          target: { channel: update.channel, to: ask.chatId },
          message: message(ask.senderId, code),
        });
      }
      this.finish(update, "pairing");
    });
  }

  private async turn(
    update: InboxUpdate,
    turn: ChannelTurn,
    config: TenantConfig,
    acknowledge: (ack: ChannelAck) => Promise<void>,
  ) {
    if (!update.acked) {
      this.ports.store.markAcked(update.channel, update.updateId);
      await acknowledge(turn.ack);
    }
    const runId = `${update.channel}:${update.updateId}`;
    try {
      const result = await startRun(this.ports.context(config, update.origin), {
        key: turn.sessionKey,
        runId,
        message: turn.text,
        origin: "agent",
        provenance: { kind: "external_user", sourceChannel: turn.replyTarget.channel },
        seed: turn.seed,
        replyTarget: turn.replyTarget,
      });
      logInfo("channel.turn", {
        tenant: this.ports.tenantId,
        channel: update.channel,
        update: update.updateId,
        session: turn.sessionKey,
        status: result.status,
      });
      this.finish(update, `turn ${runId}`);
    } catch (error) {
      // Refusals (send policy, size) end the update; anything else is retried.
      if (error instanceof DomainError) return this.finish(update, `refused: ${error.message}`);
      throw error;
    }
  }

  private async botIdentity(bot: TelegramBotApi): Promise<BotIdentity> {
    const cached = this.ports.store.bot<BotIdentity>(TELEGRAM);
    if (cached && cached.id === bot.botId) return cached;
    const me = await bot.getMe();
    if (!me) throw new Error("telegram getMe failed");
    this.ports.store.saveBot(TELEGRAM, me);
    return me;
  }

  /** The app's bot user, from `auth.test` once per token (the real gateway calls it on every event). */
  private async slackIdentity(api: SlackWebApi): Promise<CachedSlackIdentity> {
    const cached = this.ports.store.bot<CachedSlackIdentity>(SLACK);
    if (cached && cached.tokenDigest === (await api.tokenDigest())) return cached;
    const identity = await api.authTest();
    if (!identity) throw new Error("slack auth.test failed");
    this.ports.store.saveBot(SLACK, identity);
    return identity;
  }

  private finish(update: InboxUpdate, outcome: string): void {
    this.ports.store.finish(update.channel, update.updateId, outcome, Date.now());
  }
}

export function pairingCode(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(PAIRING_CODE_CHARS));
  return Array.from(bytes, (b) => PAIRING_ALPHABET[b % PAIRING_ALPHABET.length]).join("");
}
