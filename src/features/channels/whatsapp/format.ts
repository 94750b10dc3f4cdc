import { renderMarkdownLines } from "../markdown-blocks";
import { PAIRING_APPROVE_ASK, pairingApproveCall } from "../pairing-approval";

/**
 * Replies as WhatsApp shows them: its own light markup (`*bold*`, `_italic_`, `~strike~`,
 * ```` ``` ```` blocks, `` `code` ``), headings as bold lines, list items as `•`, links as
 * `label (url)`, in chunks under WhatsApp's 4,096-character text limit. Pure.
 */

/** OpenClaw's default `textChunkLimit` (WhatsApp itself allows 4,096 characters per text). */
export const WHATSAPP_CHUNK_CHARS = 4000;

/** The pairing message an unknown sender gets (OpenClaw's words; plain text: WhatsApp has no HTML). */
export function whatsappPairingMessage(senderId: string, code: string): string {
  return (
    `OpenClaw: access not configured.\n\nYour WhatsApp phone number: ${senderId}\nPairing code:\n\n` +
    `${code}\n\n${PAIRING_APPROVE_ASK}\n\n${pairingApproveCall("whatsapp", code)}`
  );
}

/** Markdown → WhatsApp markup. */
export function markdownToWhatsapp(markdown: string): string {
  return renderMarkdownLines(markdown, {
    fence: (_lang, body) => `\`\`\`\n${body.join("\n")}\n\`\`\``,
    line: renderLine,
  });
}

function renderLine(line: string): string {
  const heading = /^#{1,6}\s+(.+)$/.exec(line);
  if (heading) return `*${inline(heading[1]!)}*`;
  const item = /^(\s*)[-*+]\s+(.+)$/.exec(line);
  if (item) return `${item[1]}• ${inline(item[2]!)}`;
  return inline(line);
}

/** Inline spans: code kept as is, then links, bold, italic, strike. */
function inline(text: string): string {
  return text
    .split(/(`[^`]+`)/)
    .map((part, index) => (index % 2 === 1 ? part : spans(part)))
    .join("");
}

function spans(text: string): string {
  return text
    .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_all, label: string, url: string) =>
      label === url ? url : `${label} (${url})`,
    )
    .replace(/\*\*(.+?)\*\*|__(.+?)__/g, (_all, a?: string, b?: string) => `\u0000B${a ?? b}\u0000B`)
    .replace(/(^|[^*\w])\*(?!\s)([^*]+?)\*(?!\w)/g, "$1_$2_")
    .replace(/~~(.+?)~~/g, "~$1~")
    .replace(/\u0000B/g, "*");
}
