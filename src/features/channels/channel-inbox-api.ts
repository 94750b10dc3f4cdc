import type { Awaitable } from "../../contracts/session-api";
import type { PairingRequest } from "./inbox-store";
import type { ChannelSendResult, SendHealth } from "./send-health";

/** RPC surface of a tenant's ChannelInboxObject (src/features/channels/channel-inbox-object.ts). */
export interface ChannelInboxApi {
  /** Commits an update durably (once per id); `duplicate` when its id was seen before. */
  accept(channel: string, updateId: string, body: string, origin: string | null): Awaitable<{ duplicate: boolean }>;
  pairingList(channel: string): Awaitable<PairingRequest[]>;
  /** Approves a pending request by its code; the sender id, or null when no request has it. */
  pairingApprove(channel: string, code: string): Awaitable<string | null>;
  status(
    channel: string,
  ): Awaitable<{ pending: number; handled: number; pairingPending: number; sendHealth: SendHealth }>;
  /** A channel send's result, from any of the tenant's outboxes (channels.status shows the last failure). */
  recordSend(channel: string, result: ChannelSendResult): Awaitable<void>;
  /** Where the platform reaches a conversation (Teams' serviceUrl), as its inbox last saw it; null: unknown. */
  conversationReference(channel: string, conversationId: string): Awaitable<string | null>;
}
