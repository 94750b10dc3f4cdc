import { LINE_MESSAGES_PER_CALL } from "./format";

/**
 * How a reply's parts go out on LINE (SPEC §3.2, §5): the event's reply token first (free, at
 * most 5 messages, single use, valid about a minute), `push` for the rest and for everything when
 * the token is absent, expired, or was refused. Pure.
 */

/** LINE's reply tokens expire about a minute after the event; older ones are not tried. */
export const LINE_REPLY_TOKEN_TTL_MS = 50_000;

/** The reply token of the event a delivery answers, and when the event happened (LINE's timestamp). */
export type LineReplyToken = { token: string; eventAtMs: number };

export type LineCall = { kind: "reply" | "push"; from: number; to: number };

/**
 * The calls that send parts `[fromPart, partCount)`: a reply of the first 5 when the token is
 * usable and nothing was sent yet (a token is single use: a resumed delivery pushes), then
 * pushes of 5.
 */
export function planLineCalls(input: {
  partCount: number;
  fromPart: number;
  replyToken?: LineReplyToken;
  nowMs: number;
}): LineCall[] {
  const calls: LineCall[] = [];
  let from = input.fromPart;
  if (from === 0 && input.partCount > 0 && replyTokenUsable(input.replyToken, input.nowMs)) {
    const to = Math.min(input.partCount, LINE_MESSAGES_PER_CALL);
    calls.push({ kind: "reply", from, to });
    from = to;
  }
  for (; from < input.partCount; from += LINE_MESSAGES_PER_CALL)
    calls.push({ kind: "push", from, to: Math.min(input.partCount, from + LINE_MESSAGES_PER_CALL) });
  return calls;
}

export function replyTokenUsable(replyToken: LineReplyToken | undefined, nowMs: number): boolean {
  return replyToken !== undefined && nowMs - replyToken.eventAtMs < LINE_REPLY_TOKEN_TTL_MS;
}
