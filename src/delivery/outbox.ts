import { signatureHeader } from "../auth/webhook-signature";
import type { LiveEvent } from "../contracts/tenant-api";
import type { ChannelSender, SendOutcome } from "../features/channels/adapter";
import type { ChannelSendResult } from "../features/channels/send-health";
import type { Delivery, DeliveryInput } from "../model/delivery";
import { logWarning } from "../observability/log";
import { guardedFetch } from "../policy/guarded-fetch";
import type { OutboundPolicy } from "../policy/outbound-url";
import { sendBlocked } from "../policy/send-policy";
import type { TenantConfig } from "../protocol/config";
import type { SessionEntry } from "../protocol/session";
import type { DeliveryWebhookBody } from "../protocol/webhooks";
import { redactCredentials } from "../secrets/redact-credentials";
import { urlForDisplay, urlSecrets } from "../secrets/url-secrets";
import type { TimerPort } from "../timers/timers";
import type { DeliveryStore } from "./delivery-store";
import {
  DEFAULT_DELIVERY_ATTEMPTS,
  deliveryBackoffMs,
  PLATFORM_WAIT_MAX_MS,
  REPLY_PART_SPACING_MS,
} from "./delivery-target";

/** The delivery rows: DeliveryStore's methods without its SQL handle (Node tests keep rows in memory). */
export type OutboxStore = { [Method in keyof DeliveryStore]: DeliveryStore[Method] };

export type OutboxPorts = {
  store: OutboxStore;
  timers: TimerPort;
  entry(): SessionEntry | null;
  tenantConfig(): Promise<TenantConfig>;
  signingSecret(): Promise<string>;
  /** Where deliveries may be sent (the deployment's outbound policy). */
  outbound(): OutboundPolicy;
  /** The tenant's own sender for a channel (Telegram …), null when the channel is not configured. */
  channelSender?(channel: string, config: TenantConfig): Promise<ChannelSender | null>;
  /** Each channel send's result, for the channel's status (its last failure: channels.status). */
  channelSendResult?(channel: string, result: ChannelSendResult): Promise<void>;
  /** Tells the session's clients (here: a delivery changed state). */
  emit(event: Omit<LiveEvent, "afterSeq">): void;
  /** Tenant and session of this outbox, for log lines. */
  logContext?(): { tenant?: string | undefined; session?: string | undefined };
};

/**
 * The durable outbox behind "posted to a channel": one row per delivery with an idempotency
 * key, attempts with exponential backoff on the timer table, dead-lettered after
 * `delivery.maxAttempts`. A target on a channel the tenant configured (Telegram) goes to that
 * platform, part by part (parts sent are recorded, so a retry never repeats one); any other
 * goes to the delivery webhook, and without one it is recorded as delivered to the log. The send policy is applied at delivery time.
 */
export class Outbox {
  private readonly inFlight = new Set<string>();

  constructor(private readonly ports: OutboxPorts) {}

  /** Queues a delivery (once per idempotency key); its timer, due now, is written in the same turn. */
  enqueue(input: DeliveryInput, now = Date.now()): Delivery {
    const delivery = this.ports.store.enqueue(input, now);
    if (delivery.status === "pending") this.ports.timers.set("delivery", delivery.id, now);
    return delivery;
  }

  /** After a restart: every pending delivery without a timer gets one due now. */
  reconcile(now = Date.now()): void {
    const armed = this.ports.timers.refs("delivery");
    for (const id of this.ports.store.pendingIds()) {
      if (!armed.has(id)) this.ports.timers.set("delivery", id, now);
    }
  }

  /** One attempt; reschedules itself on failure. */
  async attempt(id: string, now = Date.now()): Promise<void> {
    if (this.inFlight.has(id)) return;
    // `now` is when the attempt began (a test's clock); wall time elapsed is added to it.
    const begun = Date.now();
    const delivery = this.ports.store.get(id);
    if (delivery?.status !== "pending") return;
    this.inFlight.add(id);
    try {
      const config = await this.ports.tenantConfig();
      const entry = this.ports.entry();
      if (entry && this.blocked(config, entry, delivery))
        return this.finish(id, { status: "blocked", error: "send blocked by session policy" }, now);
      const sender = await this.ports.channelSender?.(delivery.target.channel, config);
      const url = config.delivery?.webhookUrl;
      if (sender) {
        const outcome = await sender.send(delivery, delivery.partsSent ?? 0);
        // A platform's wait (retry_after) counts from its answer: the config and sender lookups
        // and the send itself have passed since `now` (left out, a retry came before the wait).
        const answeredAt = now + (Date.now() - begun);
        const failure = outcome.error === undefined ? null : { text: outcome.error, credentials: sender.credentials };
        await this.reportSend(delivery.target.channel, failure, outcome.sentMessageIds);
        if (!failure && outcome.moreParts) return this.paceNextPart(id, outcome.partsSent, answeredAt);
        if (!failure) return this.finish(id, { status: "delivered", deliveredTo: delivery.target.channel }, now);
        this.ports.store.recordPartsSent(id, outcome.partsSent);
        return this.failed(config, delivery, failure, answeredAt, outcome);
      }
      if (!url) {
        // Recorded as delivered to the log: which delivery and where, never its body (docs/delivery.md).
        console.log(
          `delivery ${delivery.idempotencyKey} → ${delivery.target.channel}:${delivery.target.to} (${delivery.message.length} chars, no delivery.webhookUrl)`,
        );
        return this.finish(id, { status: "delivered", deliveredTo: "log" }, now);
      }
      const failure = await this.post(url, delivery, entry);
      if (!failure) return this.finish(id, { status: "delivered", deliveredTo: urlForDisplay(url) }, now);
      return this.failed(config, delivery, failure, now);
    } finally {
      this.inFlight.delete(id);
    }
  }

  /**
   * A part is out and more remain: recorded at once (a crash or a later failure resumes after it,
   * never sends it again), the next due a pace after the platform answered. Not an attempt.
   */
  private paceNextPart(id: string, partsSent: number, answeredAt: number): void {
    this.ports.store.recordPartsSent(id, partsSent);
    this.ports.timers.set("delivery", id, answeredAt + REPLY_PART_SPACING_MS);
  }

  /** Best effort: a status that cannot be written must not fail or repeat the delivery. */
  private async reportSend(channel: string, failure: SendFailure | null, sentMessageIds?: string[]): Promise<void> {
    const result: ChannelSendResult =
      failure === null
        ? { ok: true, ...(sentMessageIds?.length ? { sentMessageIds } : {}) }
        : { ok: false, error: redacted(failure) };
    await this.ports.channelSendResult?.(channel, result).catch((error: unknown) => {
      console.error("outbox: recording a channel send result failed", error);
    });
  }

  /**
   * A failed attempt: retried after its backoff, or after the platform's own wait when it asked
   * for a longer one (`retry_after` / `Retry-After`: an earlier retry would be refused again), or
   * dead after `delivery.maxAttempts` (at once when the platform said retrying cannot help:
   * `final`, or asked for a wait past PLATFORM_WAIT_MAX_MS). Its error text is kept, logged and evented only redacted of the credentials the
   * send carried.
   */
  private failed(
    config: TenantConfig,
    delivery: Delivery,
    failure: SendFailure,
    now: number,
    platform: Pick<SendOutcome, "final" | "retryAfterMs"> = {},
  ): void {
    const { final = false, retryAfterMs = 0 } = platform;
    const waitTooLong = retryAfterMs > PLATFORM_WAIT_MAX_MS;
    const error = `${redacted(failure)}${waitTooLong ? waitRefusedText(retryAfterMs) : ""}`;
    const id = delivery.id;
    const attempts = delivery.attempts + 1;
    const maxAttempts = config.delivery?.maxAttempts ?? DEFAULT_DELIVERY_ATTEMPTS;
    const dead = final || waitTooLong || attempts >= maxAttempts;
    logWarning(dead ? "delivery.dead" : "delivery.failed", {
      ...this.ports.logContext?.(),
      delivery: delivery.id,
      kind: delivery.kind,
      channel: delivery.target.channel,
      attempt: attempts,
      maxAttempts,
      error,
    });
    if (dead) {
      this.finish(id, { status: "dead", error }, now);
      return;
    }
    this.ports.store.record(id, { status: "pending", error }, now);
    this.ports.timers.set("delivery", id, now + Math.max(deliveryBackoffMs(attempts), retryAfterMs));
  }

  private finish(
    id: string,
    outcome: { status: "delivered" | "dead" | "blocked"; error?: string; deliveredTo?: string },
    now: number,
  ): void {
    if (this.ports.store.record(id, outcome, now)) this.ports.emit(deliveryChanged(this.ports.store.get(id)!));
  }

  private blocked(config: TenantConfig, entry: SessionEntry, delivery: Delivery): boolean {
    const policy = config.session?.sendPolicy;
    return sendBlocked({ sessionKey: entry.key, entry, channel: delivery.target.channel, config: policy });
  }

  /** POSTs the delivery, signed like run requests; returns the failure (with what it carried) or null. */
  private async post(url: string, delivery: Delivery, entry: SessionEntry | null): Promise<SendFailure | null> {
    const payload: DeliveryWebhookBody = {
      type: "delivery",
      id: delivery.id,
      idempotencyKey: delivery.idempotencyKey,
      kind: delivery.kind,
      ...(entry ? { sessionKey: entry.key } : {}),
      ...delivery.target,
      message: delivery.message,
    };
    const body = JSON.stringify(payload);
    const credentials = urlSecrets(url);
    try {
      const signingSecret = await this.ports.signingSecret();
      credentials.push(signingSecret);
      const response = await guardedFetch(
        url,
        {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "idempotency-key": delivery.idempotencyKey,
            ...(await signatureHeader(signingSecret, body)),
          },
          body,
        },
        this.ports.outbound(),
      );
      await response.body?.cancel();
      return response.ok ? null : { text: `delivery webhook answered ${response.status}`, credentials };
    } catch (error) {
      return { text: `delivery webhook unreachable: ${(error as Error).message}`, credentials };
    }
  }
}

/** A failed send: the upstream's text and the credentials its request carried (redacted from it). */
type SendFailure = { text: string; credentials: readonly string[] };

/** Why a delivery is dead without waiting: the platform's wait, in whole seconds, past the bound. */
function waitRefusedText(retryAfterMs: number): string {
  const asked = Math.ceil(retryAfterMs / 1_000);
  return ` (the platform asked to wait ${asked} s, past the ${PLATFORM_WAIT_MAX_MS / 1_000} s a delivery is held for a platform's wait)`;
}

/**
 * The one redaction of a send's error text, before anything keeps, logs, events or reports it:
 * a platform, a proxy or a self-hosted API server may echo the credentials it was sent.
 */
function redacted(failure: SendFailure): string {
  return redactCredentials(failure.text, failure.credentials);
}

/** A delivery that changed state, as clients hear of it: `sessions.changed` with reason "delivery". */
function deliveryChanged(delivery: Delivery): Omit<LiveEvent, "afterSeq"> {
  return {
    event: "sessions.changed",
    payload: {
      reason: "delivery",
      deliveryId: delivery.id,
      deliveryStatus: delivery.status,
      deliveryKind: delivery.kind,
    },
  };
}
