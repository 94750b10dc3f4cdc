import { renderMarkdownLines } from "../markdown-blocks";
import { PAIRING_APPROVE_ASK, pairingApproveCall } from "../pairing-approval";
import { chunkText } from "../telegram/format";

/**
 * Replies as the real gateway sends them to LINE (SPEC §3.2): Markdown flattened to plain text
 * (LINE renders none), chunks of 5,000 characters on line boundaries, at most 5 messages per
 * reply call. Pure.
 */

/** LINE's limit per text message. */
export const LINE_CHUNK_CHARS = 5000;
/** LINE's limit of messages per reply or push call. */
export const LINE_MESSAGES_PER_CALL = 5;

/** OpenClaw's LINE pairing message (recorded), naming this service's way to approve. */
export function linePairingMessage(senderId: string, code: string): string {
  return (
    `OpenClaw: access not configured.\n\nYour lineUserId: ${senderId}\nPairing code:\n\`\`\`\n${code}\n\`\`\`\n\n` +
    `${PAIRING_APPROVE_ASK}\n\`\`\`\n${pairingApproveCall("line", code)}\n\`\`\``
  );
}

/**
 * Markdown → plain text as recorded: `**bold**` / `*it*` / `~~s~~` / `` `code` `` lose their
 * marks, `[label](url)` becomes `label (url)`, `-`/`*` items `•`, headings their text, fenced
 * blocks their body.
 */
export function markdownToLineText(markdown: string): string {
  return renderMarkdownLines(markdown, {
    fence: (_lang, body) => body.join("\n"),
    line: (line) => {
      const heading = /^#{1,6}\s+(.*)$/.exec(line);
      const item = /^(\s*)[-*+]\s+(.*)$/.exec(line);
      const text = heading ? heading[1]! : item ? `${item[1]}• ${item[2]}` : line;
      return inline(text);
    },
  });
}

function inline(text: string): string {
  return text
    .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, "$1 ($2)")
    .replace(/`([^`]+)`/g, "$1")
    .replace(/\*\*([^*]+)\*\*/g, "$1")
    .replace(/__([^_]+)__/g, "$1")
    .replace(/~~([^~]+)~~/g, "$1")
    .replace(/(^|[\s(])\*([^*\s][^*]*)\*(?=[\s).,!?:;]|$)/g, "$1$2")
    .replace(/(^|[\s(])_([^_\s][^_]*)_(?=[\s).,!?:;]|$)/g, "$1$2");
}

/** A reply's text messages: flattened, in chunks on line boundaries, each without trailing whitespace. */
export function lineReplyParts(markdown: string, limit = LINE_CHUNK_CHARS): string[] {
  return chunkText(markdownToLineText(markdown), limit).map((part) => part.replace(/\s+$/, ""));
}
