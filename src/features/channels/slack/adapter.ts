import { defaultAgentId } from "../../../policy/agent-config";
import { slackEnvelopeSchema } from "../../../protocol/channels";
import type { TenantConfig } from "../../../protocol/config";
import type { InboundAdapter, InboundDecision } from "../adapter";
import { slackPairingMessage } from "./format";
import { slackInboundText } from "./inbound-text";
import { slackMediaRefs, slackMediaSource } from "./media-download";
import { channelName, userName } from "./names";
import { decideSlack } from "./routing";
import type { BotThreadsPort } from "./threads";
import type { CachedSlackIdentity, SlackWebApi } from "./web-api";

/** What the Slack adapter needs from its host: the tenant's app, and a place to remember its bot user. */
export type SlackAdapterPorts = {
  api(config: TenantConfig): Promise<SlackWebApi | null>;
  identity: { get(): CachedSlackIdentity | null; save(bot: CachedSlackIdentity): void };
  /** The threads the bot posted in; without it only threads under the bot's own messages are followed. */
  threads?: BotThreadsPort;
};

/** Slack's inbound side: Events API envelopes decided by src/features/channels/slack/routing.ts. */
export function slackInbound(ports: SlackAdapterPorts): InboundAdapter {
  return {
    async decide({ body, config, approved }) {
      const slack = config.channels?.slack;
      const api = slack ? await ports.api(config) : null;
      if (!slack || !api) return null;
      const parsed = slackEnvelopeSchema.safeParse(JSON.parse(body));
      if (!parsed.success) return { action: "ignore", reason: "not a message event" };
      const event = parsed.data.event;
      const inChannel =
        typeof event.channel === "string" && event.channel_type !== "im" && !event.channel.startsWith("D");
      // Side by side: a slow Web API costs an event one lookup's wait, not two.
      const [named, sender] = await Promise.all([
        inChannel ? channelName(api, event.channel!) : undefined,
        typeof event.user === "string" && !event.bot_id ? userName(api, event.user) : undefined,
      ]);
      const now = Date.now();
      const threadTs = inChannel && event.thread_ts !== event.ts ? event.thread_ts : undefined;
      const decision = decideSlack({
        envelope: parsed.data,
        slack,
        config,
        agentId: defaultAgentId(config),
        bot: await identityOf(api, ports.identity),
        approved,
        ...(named ? { channelName: named } : {}),
        ...(sender ? { senderName: sender } : {}),
        botPostedInThread: threadTs ? (ports.threads?.has(event.channel!, threadTs, now) ?? false) : false,
      });
      // The reply of a channel turn in a thread is the bot posting there: later replies follow it up.
      const replyThread = decision.action === "turn" ? decision.turn.replyTarget.threadId : undefined;
      if (inChannel && replyThread !== undefined) ports.threads?.note(event.channel!, String(replyThread), now);
      return withFiles(decision, event);
    },
    async mediaSource(config) {
      const api = await ports.api(config);
      return api ? slackMediaSource(api) : null;
    },
    async acknowledge(config, ack) {
      await (await ports.api(config))?.acknowledge(ack);
    },
    pairingMessage: slackPairingMessage,
  };
}

/** A turn of a file_share names its files (fetched by the inbox before the run) and its text. */
function withFiles(decision: InboundDecision, event: { text?: string | undefined; ts?: string | undefined }) {
  if (decision.action !== "turn") return decision;
  const media = slackMediaRefs(event);
  if (media.length === 0) return decision;
  const turn = {
    ...decision.turn,
    media,
    captionText: slackInboundText(event.text ?? ""),
    ...(event.ts ? { messageId: event.ts } : {}),
  };
  return { action: "turn" as const, turn };
}

/** The app's bot user, from `auth.test` once per token (the real gateway calls it on every event). */
async function identityOf(api: SlackWebApi, cache: SlackAdapterPorts["identity"]): Promise<CachedSlackIdentity> {
  const cached = cache.get();
  if (cached && cached.tokenDigest === (await api.tokenDigest())) return cached;
  const identity = await api.authTest();
  cache.save(identity);
  return identity;
}
