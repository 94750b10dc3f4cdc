/** OpenClaw's silent reply token (src/auto-reply/tokens.ts): a reply of exactly this is not shown. */
export const SILENT_REPLY = "NO_REPLY";

/** Whether the text is the silent token (or, while streaming, could still become it). */
export function isSilentReply(text: string, options: { prefix?: boolean } = {}): boolean {
  const trimmed = text.trim();
  if (trimmed === SILENT_REPLY) return true;
  return options.prefix === true && trimmed.length > 0 && SILENT_REPLY.startsWith(trimmed);
}
