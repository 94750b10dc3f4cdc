import { SILENT_REPLY } from "../runs/deltas";

/**
 * The texts of OpenClaw's agent-to-agent flow (sessions_send): the context injected into the
 * primary run, the reply-step prompt of the ping-pong, the announce prompt, and the tokens
 * that stop them. Pure functions, unit-tested alone.
 */

export const REPLY_SKIP = "REPLY_SKIP";
export const ANNOUNCE_SKIP = "ANNOUNCE_SKIP";
export const ANNOUNCE_MESSAGE = "Agent-to-agent announce step.";

export type A2aSessions = {
  requesterKey?: string;
  requesterChannel?: string;
  targetKey: string;
  targetChannel?: string;
};

function sessionLines(s: A2aSessions): string[] {
  return [
    ...(s.requesterKey ? [`Agent 1 (requester) session: ${s.requesterKey}.`] : []),
    ...(s.requesterChannel ? [`Agent 1 (requester) channel: ${s.requesterChannel}.`] : []),
    `Agent 2 (target) session: ${s.targetKey}.`,
    ...(s.targetChannel ? [`Agent 2 (target) channel: ${s.targetChannel}.`] : []),
  ];
}

/** extraSystemPrompt of the primary run. */
export function agentToAgentContext(s: A2aSessions): string {
  return ["Agent-to-agent message context:", ...sessionLines(s)].join("\n");
}

/** extraSystemPrompt of ping-pong turn `turn` of `maxTurns`, run in the requester or the target. */
export function replyStepPrompt(
  s: A2aSessions,
  current: "requester" | "target",
  turn: number,
  maxTurns: number,
): string {
  return [
    "Agent-to-agent reply step:",
    current === "requester" ? "Current agent: Agent 1 (requester)." : "Current agent: Agent 2 (target).",
    `Turn ${turn} of ${maxTurns}.`,
    ...sessionLines(s),
    `If you want to stop the ping-pong, reply exactly "${REPLY_SKIP}".`,
  ].join("\n");
}

/** extraSystemPrompt of the announce step (run in the target). */
export function announcePrompt(
  s: A2aSessions,
  original: string,
  round1Reply: string | undefined,
  latestReply: string | undefined,
): string {
  return [
    "Agent-to-agent announce step:",
    ...sessionLines(s),
    `Original request: ${original}`,
    round1Reply ? `Round 1 reply: ${round1Reply}` : "Round 1 reply: (not available).",
    latestReply ? `Latest reply: ${latestReply}` : "Latest reply: (not available).",
    `If you want to remain silent, reply exactly "${ANNOUNCE_SKIP}".`,
    "Any other reply will be posted to the target channel.",
    "After this reply, the agent-to-agent conversation is over.",
  ].join("\n");
}

/** Whether a ping-pong reply ends the loop: empty, or exactly REPLY_SKIP. */
export function endsPingPong(reply: string | undefined): boolean {
  const trimmed = (reply ?? "").trim();
  return trimmed === "" || trimmed === REPLY_SKIP;
}

/** Whether an announce reply stays silent: empty, or exactly ANNOUNCE_SKIP (or NO_REPLY). */
export function isSilentAnnounce(reply: string | undefined): boolean {
  const trimmed = (reply ?? "").trim();
  return trimmed === "" || trimmed === ANNOUNCE_SKIP || trimmed === SILENT_REPLY;
}
