import { mainSessionKey, normalizeAgentId } from "../../keys/session-key";
import type { TenantConfig } from "../../protocol/config";

/**
 * Session keys of inbound chat messages, as OpenClaw forms them (docs/channels.md, SPEC §5):
 * a direct message per `session.dmScope`, a group per chat, a thread or topic below its group.
 * Pure; shared by every channel adapter.
 */

export type DmScope = NonNullable<NonNullable<TenantConfig["session"]>["dmScope"]>;

/** The session of a direct message from `peerId` on `channel` (account `accountId`). */
export function directSessionKey(input: {
  config: Pick<TenantConfig, "session">;
  agentId: string;
  channel: string;
  accountId: string;
  peerId: string;
}): string {
  const agent = normalizeAgentId(input.agentId);
  const peer = input.peerId.toLowerCase();
  switch (input.config.session?.dmScope ?? "main") {
    case "per-peer":
      return `agent:${agent}:direct:${peer}`;
    case "per-channel-peer":
      return `agent:${agent}:${input.channel}:direct:${peer}`;
    case "per-account-channel-peer":
      return `agent:${agent}:${input.channel}:${input.accountId}:direct:${peer}`;
    default:
      return mainSessionKey(agent, input.config.session);
  }
}

/**
 * The session of a group chat (`peerKind` "group", Telegram) or a channel (`"channel"`, Slack),
 * and of one of its threads/topics (`kind` names the suffix).
 */
export function groupSessionKey(input: {
  agentId: string;
  channel: string;
  peerKind?: "group" | "channel";
  groupId: string;
  thread?: { kind: "topic" | "thread"; id: string };
}): string {
  const base = `agent:${normalizeAgentId(input.agentId)}:${input.channel}:${input.peerKind ?? "group"}:${input.groupId.toLowerCase()}`;
  return input.thread ? `${base}:${input.thread.kind}:${input.thread.id}` : base;
}
