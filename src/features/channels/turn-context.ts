import type { ChannelTurn } from "./adapter";
import type { GroupHistoryPort } from "./group-history-store";
import { envelopeMessages } from "./inbound-envelope";

/**
 * What the model is told for a turn: OpenClaw's envelope with the group's recent unmentioned
 * messages. `consumed` clears those lines once the turn's run exists (OpenClaw clears a
 * group's history after the reply that used it); lines recorded meanwhile stay.
 */
export function modelTurn(
  turn: ChannelTurn,
  history: GroupHistoryPort | undefined,
): { modelMessages?: string[]; consumed(): void } {
  if (!turn.envelope) return { consumed: () => undefined };
  const kept = turn.historyKey && history ? history.recent(turn.historyKey) : { lines: [], upTo: 0 };
  const envelope = kept.lines.length > 0 ? { ...turn.envelope, history: kept.lines } : turn.envelope;
  return {
    modelMessages: envelopeMessages(envelope, turn.text),
    consumed: () => {
      if (turn.historyKey && kept.upTo > 0) history?.clear(turn.historyKey, kept.upTo);
    },
  };
}
