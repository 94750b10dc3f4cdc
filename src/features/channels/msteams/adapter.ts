import { defaultAgentId } from "../../../policy/agent-config";
import type { OutboundPolicy } from "../../../policy/outbound-url";
import type { MsTeamsConfig } from "../../../protocol/channels";
import type { TenantConfig } from "../../../protocol/config";
import type { InboundAdapter } from "../adapter";
import { channelCredential, type SecretResolver } from "../channel-registry";
import type { ConversationReferences } from "../conversation-reference-store";
import { MSTEAMS, splitConversationId } from "./activity";
import { msTeamsActivitySchema } from "./bot-framework-schemas";
import { defaultTokenUrl, MsTeamsConnector } from "./connector";
import { msTeamsPairingMessage } from "./format";
import { decideMsTeams } from "./routing";

/** The tenant's Bot Connector client, when Teams is enabled and has its app password. */
export async function msTeamsConnectorOf(
  config: TenantConfig,
  resolve: SecretResolver,
  outbound: OutboundPolicy,
  conversations: ConversationReferences | undefined,
): Promise<MsTeamsConnector | null> {
  const msteams = config.channels?.msteams;
  if (!msteams || msteams.enabled === false || !conversations) return null;
  const tokenUrl = msteams.tokenUrl ?? defaultTokenUrl(msteams.tenantId);
  const appPassword = await channelCredential(msteams.appPassword, resolve, tokenUrl, outbound);
  if (!appPassword) return null;
  return new MsTeamsConnector(
    {
      appId: msteams.appId,
      appPassword,
      ...(msteams.tenantId ? { tenantId: msteams.tenantId } : {}),
      ...(msteams.tokenUrl ? { tokenUrl: msteams.tokenUrl } : {}),
      ...(msteams.apiRoot ? { apiRoot: msteams.apiRoot } : {}),
    },
    { serviceUrl: (conversationId) => conversations.reference(MSTEAMS, conversationId) },
    outbound,
    msteams.textChunkLimit,
  );
}

/** What the Teams adapter needs from its host: the tenant's block, its Bot Connector client, the conversation memory. */
export type MsTeamsAdapterPorts = {
  msteams(config: TenantConfig): MsTeamsConfig | undefined;
  connector(config: TenantConfig): Promise<MsTeamsConnector | null>;
  /** Keeps the conversation's Bot Connector for its replies (conversation-reference-store.ts). */
  remember(conversationId: string, serviceUrl: string): void;
};

/** Teams' inbound side: stored activities parsed and decided by src/features/channels/msteams/routing.ts. */
export function msTeamsInbound(ports: MsTeamsAdapterPorts): InboundAdapter {
  return {
    async decide({ body, config, approved }) {
      const msteams = ports.msteams(config);
      if (!msteams || msteams.enabled === false) return null;
      const parsed = msTeamsActivitySchema.safeParse(JSON.parse(body));
      if (!parsed.success) return { action: "ignore", reason: "not an activity" };
      // The stored activity passed the token and serviceUrl checks at the door.
      const { conversation, serviceUrl } = parsed.data;
      if (conversation && serviceUrl) ports.remember(splitConversationId(conversation.id).conversationId, serviceUrl);
      return decideMsTeams({ activity: parsed.data, msteams, config, agentId: defaultAgentId(config), approved });
    },
    async acknowledge(config, ack) {
      await (await ports.connector(config))?.typing(ack.chatId);
    },
    pairingMessage: msTeamsPairingMessage,
  };
}
