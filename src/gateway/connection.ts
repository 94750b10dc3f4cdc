import { hasScope } from "../auth/principal";
import type { SetupWizardState } from "../features/channels/setup-wizard";
import type { OperatorScope } from "../protocol/http";

/**
 * Everything a gateway connection needs after the tenant object wakes from hibernation:
 * kept in the socket's attachment (≤ 16 KiB), never only in memory.
 */
export type ConnectionState = {
  connId: string;
  tenantId: string;
  /** The origin the client connected to (its Host); runs started here call back to the service origin. */
  origin: string;
  /** The upgrade's `Origin` header: the socket was opened by a browser page (checked at connect). */
  browserOrigin?: string;
  /** The client's address (CF-Connecting-IP): unauthenticated sockets are bounded per address. */
  address?: string;
  phase: "challenge" | "ready";
  nonce: string;
  challengeTs: number;
  protocol?: 3 | 4;
  role?: "operator";
  scopes?: OperatorScope[];
  /** Every OpenClaw scope granted (hello-ok's `auth.scopes`, e.g. operator.approvals). */
  grantedScopes?: string[];
  tokenId?: string;
  client?: { id: string; mode: string; version: string; platform: string };
  caps?: string[];
  /** Subscribed to sessions.changed (sessions.subscribe). */
  sessions?: boolean;
  /** Canonical keys subscribed with sessions.messages.subscribe. */
  messageKeys?: string[];
  /** Requests refused for missing scopes; too many closes the socket (1008). */
  refusals?: number;
  /** The Channels › Set up wizard in progress on this connection (`wizard.*`), if any. */
  wizard?: SetupWizardState;
  /** The seq of the last event frame sent (persisted shortly after it changes). */
  seq?: number;
};

/** Keys one connection may follow at once (keeps the attachment far below 16 KiB). */
export const MAX_MESSAGE_SUBSCRIPTIONS = 64;

export function readState(ws: WebSocket): ConnectionState | null {
  try {
    return (ws.deserializeAttachment() as ConnectionState | null) ?? null;
  } catch {
    return null;
  }
}

export function writeState(ws: WebSocket, state: ConnectionState): void {
  ws.serializeAttachment(state);
}

/** Ready and allowed to read: only such connections receive session events. */
export function canRead(state: ConnectionState): boolean {
  return state.phase === "ready" && hasScope({ kind: "operator", scopes: state.scopes ?? [] }, "operator.read");
}
