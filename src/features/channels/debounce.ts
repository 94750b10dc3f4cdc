import { parseChatCommand } from "../../domain/chat-commands";
import { INBOUND_DEBOUNCE_MAX_MS, type TenantConfig } from "../../protocol/config";
import type { ChannelTurn } from "./adapter";

/**
 * Inbound debounce (OpenClaw's `messages.inbound`, issue 46 item 5): text messages of one
 * sender in one chat that follow each other inside the window become ONE turn, their texts
 * joined with `\n`, answered once. Pure rules; the inbox holds the updates durably
 * (src/features/channels/debounce-store.ts) and flushes them behind its one alarm.
 */

/**
 * The window when the tenant sets none, on the platforms in DEBOUNCED_BY_DEFAULT. OpenClaw's
 * code default is 0, yet the real gateway 2026.9.6 answered two Telegram DMs 50 ms apart once
 * (`quick one\nquick two`): its queue folds a message that arrives while the first is handled
 * into that turn. A short window gives the same outcome here without delaying a lone message much.
 */
export const DEFAULT_INBOUND_DEBOUNCE_MS = 300;
/** Platforms with the default window (Telegram: recorded; Slack alike); the others 0 unless configured. */
const DEBOUNCED_BY_DEFAULT: ReadonlySet<string> = new Set(["telegram", "slack"]);

/** The window for a channel: `byChannel[channel]`, else `debounceMs` (as OpenClaw resolves it), else this service's default. */
export function inboundDebounceMs(config: Pick<TenantConfig, "messages">, channel: string): number {
  const inbound = config.messages?.inbound;
  const fallback = DEBOUNCED_BY_DEFAULT.has(channel) ? DEFAULT_INBOUND_DEBOUNCE_MS : 0;
  const chosen = inbound?.byChannel?.[channel] ?? inbound?.debounceMs ?? fallback;
  return Math.min(INBOUND_DEBOUNCE_MAX_MS, Math.max(0, Math.trunc(chosen)));
}

/**
 * Whether a turn may wait for the next message, as OpenClaw decides: text only (a message with
 * media is handled at once), never a control command (it stays standalone), never a button press.
 */
export function isDebounceable(turn: ChannelTurn): boolean {
  if (turn.text.trim() === "" || (turn.media?.length ?? 0) > 0 || turn.ack.callbackQueryId !== undefined) return false;
  return parseChatCommand(turn.text) === null;
}

/** What one burst shares: the same sender in the same chat (and thread) of one channel. */
export function debounceKey(channel: string, turn: ChannelTurn): string {
  const { to, threadId } = turn.replyTarget;
  return JSON.stringify([channel, to, threadId ?? null, turn.senderId]);
}

/** When a burst is due: the window after its last message (each message restarts it, as OpenClaw's timer). */
export function burstDueAt(lastReceivedAt: number, windowMs: number): number {
  return lastReceivedAt + windowMs;
}

/**
 * One turn for a burst, as OpenClaw builds it: the texts joined with `\n`; the route, the
 * acknowledgement and the context of the most recent message (replies and ids follow it).
 */
export function mergedTurn(turns: readonly ChannelTurn[]): ChannelTurn {
  const last = turns.at(-1);
  if (!last) throw new Error("mergedTurn: no turns");
  if (turns.length === 1) return last;
  const text = turns
    .map((turn) => turn.text)
    .filter((text) => text !== "")
    .join("\n");
  return { ...last, text };
}
