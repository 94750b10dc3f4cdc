import type { SendOutcome } from "./adapter";

/** What a refused part reports: the error, and the refused answer or `final` when the sender has them. */
export type PartRefused = Omit<SendOutcome, "partsSent" | "moreParts">;

/**
 * The one shape of "one platform call per send" every part-by-part sender shares: part
 * `fromPart` of `parts` goes out with ONE call (`sendPart`, answering null when the platform
 * took it); the outbox sends the next on its timer (OpenClaw's parts go ~1 s apart), so the
 * answer says `moreParts` while parts remain. Past the last part: all sent. Refused: the parts
 * before it are out, the refusal as the sender read it.
 */
export async function sendOnePart(
  parts: readonly string[],
  fromPart: number,
  sendPart: (text: string, part: number) => Promise<PartRefused | null>,
): Promise<SendOutcome> {
  if (fromPart >= parts.length) return { partsSent: parts.length };
  const refused = await sendPart(parts[fromPart]!, fromPart);
  if (refused) return { partsSent: fromPart, ...refused };
  return fromPart + 1 < parts.length ? { partsSent: fromPart + 1, moreParts: true } : { partsSent: parts.length };
}
