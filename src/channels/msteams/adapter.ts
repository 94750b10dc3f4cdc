import { defaultAgentId } from "../../policy/agent-config";
import type { TenantConfig } from "../../protocol/config";
import { type MsTeamsConfig, msTeamsActivitySchema } from "../../protocol/msteams";
import type { InboundAdapter } from "../adapter";
import { splitConversationId } from "./activity";
import type { MsTeamsConnector } from "./connector";
import { msTeamsPairingMessage } from "./format";
import { decideMsTeams } from "./routing";

/**
 * What the Teams adapter needs from its host: the tenant's `channels.msteams` (until the config
 * schema carries it, the host reads it) and the tenant's Bot Connector client (secrets resolved).
 */
export type MsTeamsAdapterPorts = {
  msteams(config: TenantConfig): MsTeamsConfig | undefined;
  connector(config: TenantConfig): Promise<MsTeamsConnector | null>;
  /** Keeps the conversation's Bot Connector for its replies (conversation-store.ts). */
  remember(conversationId: string, serviceUrl: string): void;
};

/** Teams' inbound side: stored activities parsed and decided by src/channels/msteams/routing.ts. */
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
