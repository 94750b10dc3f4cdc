import type { PairingRequest } from "../channels/inbox-store";
import type { Awaitable } from "./session-api";

/** RPC surface of a tenant's ChannelInboxObject (src/channels/channel-inbox-object.ts). */
export interface ChannelInboxApi {
  /** Commits an update durably (once per id); `duplicate` when its id was seen before. */
  accept(channel: string, updateId: string, body: string, origin: string | null): Awaitable<{ duplicate: boolean }>;
  pairingList(channel: string): Awaitable<PairingRequest[]>;
  /** Approves a pending request by its code; the sender id, or null when no request has it. */
  pairingApprove(channel: string, code: string): Awaitable<string | null>;
  status(channel: string): Awaitable<{ pending: number; handled: number; pairingPending: number }>;
}
