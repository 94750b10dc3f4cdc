/**
 * Replies as the real gateway posts them to Slack (SPEC §4.2): Markdown rendered to Slack's
 * mrkdwn, in chunks of 8,000 characters on line boundaries (9,000 → 8,000 + 999). Pure.
 */

import { renderMarkdownLines } from "../markdown-blocks";
import { PAIRING_APPROVE_ASK, pairingApproveCall } from "../pairing-approval";

/** OpenClaw's chunk size for Slack (chat.postMessage takes up to 40,000). */
export const SLACK_CHUNK_CHARS = 8000;

/** The pairing message OpenClaw sends an unknown Slack sender (mrkdwn, sent as is), naming this service's way to approve. */
export function slackPairingMessage(senderId: string, code: string): string {
  return (
    `OpenClaw: access not configured.\n\nYour Slack user id: ${senderId}\nPairing code:\n\n` +
    `\`\`\`\n${code}\n\`\`\`\n${PAIRING_APPROVE_ASK}\n\n` +
    `\`\`\`\n${pairingApproveCall("slack", code)}\n\`\`\``
  );
}

/**
 * Slack's own `<…>` markup that passes through unescaped: user, channel and special mentions
 * (`<@U0BOT>`, `<#C0…|name>`, `<!here>`) and links (`<https://…|label>`).
 */
const SLACK_TOKEN =
  /<(?:[@#][A-Z0-9]+(?:\|[^<>]*)?|![a-z]+(?:\^[^<>]*)?(?:\|[^<>]*)?|(?:https?|mailto):[^<>\s|]+(?:\|[^<>]*)?)>/g;

/** `&`, `<`, `>` escaped as Slack requires, except inside Slack's own markup. */
function escapeMrkdwn(text: string): string {
  const escapePlain = (plain: string) => plain.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  let out = "";
  let last = 0;
  for (const match of text.matchAll(SLACK_TOKEN)) {
    out += escapePlain(text.slice(last, match.index)) + escapeLinkAmpersands(match[0]);
    last = match.index + match[0].length;
  }
  return out + escapePlain(text.slice(last));
}

/**
 * A link's raw `&` (a query string's) as `&amp;`, as OpenClaw posts it: Slack reads `&` in its
 * markup as the start of an entity. Entities already written are kept.
 */
function escapeLinkAmpersands(token: string): string {
  if (!/^<(?:https?|mailto):/.test(token)) return token;
  return token.replace(/&(?!(?:amp|lt|gt);)/g, "&amp;");
}

/**
 * Markdown → mrkdwn: **bold** / __bold__ → *bold*, *italic* / _italic_ → _italic_,
 * ~~strike~~ → ~strike~, [label](url) → <url|label>, headings as bold, `-`/`*`/`+` items as
 * `•`; code spans and fenced blocks kept as they are (escaped only).
 */
export function markdownToSlackMrkdwn(markdown: string): string {
  return renderMarkdownLines(markdown, {
    fence: (_lang, body) => ["```", ...body.map(escapeMrkdwn), "```"].join("\n"),
    line: renderLine,
  });
}

function renderLine(line: string): string {
  const heading = /^#{1,6}\s+(.*)$/.exec(line);
  if (heading) return `*${renderInline(heading[1]!)}*`;
  const item = /^(\s*)[-*+]\s+(.*)$/.exec(line);
  if (item) return `${item[1]}• ${renderInline(item[2]!)}`;
  return renderInline(line);
}

/** Inline spans: code first (its content is literal), then links, then emphasis. */
function renderInline(text: string): string {
  return text
    .split(/(`[^`]+`)/)
    .map((part) =>
      part.length > 1 && part.startsWith("`") && part.endsWith("`") ? escapeMrkdwn(part) : emphasis(part),
    )
    .join("");
}

function emphasis(text: string): string {
  // Links become Slack markup before escaping, so their `<…>` survives it.
  let out = escapeMrkdwn(
    text.replace(
      /\[([^\]]+)\]\(((?:https?|mailto):[^\s)]+)\)/g,
      (_m, label: string, url: string) => `<${url}|${label.replace(/[<>|]/g, "")}>`,
    ),
  );
  // Italic first, marked with a placeholder so the bold `*` it produces is not read again.
  out = out.replace(/(^|[^\w*])\*(?=\S)([^*]+?)(?<=\S)\*(?![\w*])/g, "$1\u0001$2\u0001");
  out = out.replace(/\*\*(?=\S)(.+?)(?<=\S)\*\*/g, "*$1*");
  out = out.replace(/__(?=\S)(.+?)(?<=\S)__/g, "*$1*");
  out = out.replace(/~~(?=\S)(.+?)(?<=\S)~~/g, "~$1~");
  return out.replace(/\u0001/g, "_");
}
