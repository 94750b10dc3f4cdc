import type { MessageRecord } from "../model/message-record";
import type { SessionRow } from "../model/session-row";

/** What a session object tells its tenant object (the publish path), apart so both contracts can name it. */

/** Why a session changed, as `sessions.changed` reports it. */
export type ChangeReason = "create" | "patch" | "new" | "reset" | "send" | "abort" | "archive";

/**
 * A live event of a run (chat deltas, lifecycle): not stored, delivered in order with the
 * messages — `afterSeq` is the transcript length when it happened.
 */
export type LiveEvent = {
  event: "chat" | "agent" | "sessions.changed";
  payload: Record<string, unknown>;
  afterSeq: number;
};

/** What a session object tells its tenant: new messages, live events, why, and the row when it changed. */
export type SessionUpdate = {
  key: string;
  sessionId: string;
  /** The entry version this update describes. */
  version: number;
  /** The fresh row, only when the entry changed since the tenant last acknowledged it. */
  row?: SessionRow;
  /** Messages appended since the last acknowledged update, in transcript order. */
  messages: MessageRecord[];
  /** With messages: the UTF-8 bytes of every message the session holds (SessionStore.messageBytes). */
  messageBytes?: number;
  reasons: ChangeReason[];
  events: LiveEvent[];
  /**
   * Delivered by the session's caller (chat.inject in the tenant object, Publisher.handOff): its
   * one message was never sent before, so it is fanned out as it is.
   */
  handedOff?: boolean;
};
