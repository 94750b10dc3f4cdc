/**
 * Replies as the real gateway sends them to Telegram (SPEC §3.3, §3.6): Markdown rendered to
 * Telegram's HTML subset, split into chunks of 4,000 characters on line boundaries, and the
 * plain-text form re-sent when Telegram cannot parse the HTML. Pure.
 */

import { renderMarkdownLines } from "../markdown-blocks";
import { PAIRING_APPROVE_ASK, pairingApproveCall } from "../pairing-approval";

/** OpenClaw's `textChunkLimit` default for Telegram (Telegram itself allows 4,096). */
export const TELEGRAM_CHUNK_CHARS = 4000;

/** The pairing message OpenClaw sends an unknown sender (HTML), naming this service's way to approve. */
export function pairingMessage(senderId: string, code: string): string {
  return (
    `OpenClaw: access not configured.\n\nYour Telegram user id: ${senderId}\nPairing code:\n\n` +
    `<pre><code>${code}\n</code></pre>\n${PAIRING_APPROVE_ASK}\n\n` +
    `<pre><code>${pairingApproveCall("telegram", code)}\n</code></pre>`
  );
}

/**
 * Splits text into chunks of at most `limit` characters, each ending at a line break where
 * one falls inside the window (the break stays with its chunk); the last chunk loses its
 * trailing whitespace, as the recorded 9,000 → 4,000 + 4,000 + 999.
 */
export function chunkText(text: string, limit = TELEGRAM_CHUNK_CHARS): string[] {
  const chunks: string[] = [];
  let rest = text.replace(/\s+$/, "");
  while (rest.length > limit) {
    const newline = rest.lastIndexOf("\n", limit - 1);
    const cut = newline > 0 ? newline + 1 : limit;
    chunks.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  if (rest.length > 0 || chunks.length === 0) chunks.push(rest);
  return chunks;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function escapeAttribute(text: string): string {
  return escapeHtml(text).replace(/"/g, "&quot;");
}

/**
 * Markdown → Telegram HTML: **bold**, *italic* / _italic_, ~~strike~~, `code`, fenced code
 * blocks, [links](url), headings as bold, `-`/`*` list items as `•`; everything else escaped.
 */
export function markdownToTelegramHtml(markdown: string): string {
  return renderMarkdownLines(markdown, {
    fence: (lang, body) => {
      const language = lang ? ` class="language-${escapeAttribute(lang)}"` : "";
      return `<pre><code${language}>${escapeHtml(body.join("\n"))}</code></pre>`;
    },
    line: renderLine,
  });
}

function renderLine(line: string): string {
  const heading = /^#{1,6}\s+(.*)$/.exec(line);
  if (heading) return `<b>${renderInline(heading[1]!)}</b>`;
  const item = /^(\s*)[-*+]\s+(.*)$/.exec(line);
  if (item) return `${item[1]}• ${renderInline(item[2]!)}`;
  return renderInline(line);
}

/** Inline spans: code first (its content is literal), then links, then emphasis. */
function renderInline(text: string): string {
  const parts = text.split(/(`[^`]+`)/);
  return parts
    .map((part) => {
      if (part.length > 1 && part.startsWith("`") && part.endsWith("`"))
        return `<code>${escapeHtml(part.slice(1, -1))}</code>`;
      return renderEmphasis(part);
    })
    .join("");
}

function renderEmphasis(text: string): string {
  let html = escapeHtml(text);
  html = html.replace(
    /\[([^\]]+)\]\(((?:https?|tg|mailto):[^\s)]+)\)/g,
    (_m, label: string, url: string) => `<a href="${url.replace(/"/g, "&quot;")}">${label}</a>`,
  );
  html = html.replace(/\*\*(?=\S)(.+?)(?<=\S)\*\*/g, "<b>$1</b>");
  html = html.replace(/__(?=\S)(.+?)(?<=\S)__/g, "<b>$1</b>");
  html = html.replace(/~~(?=\S)(.+?)(?<=\S)~~/g, "<s>$1</s>");
  html = html.replace(/(^|[^\w*])\*(?=\S)([^*]+?)(?<=\S)\*(?![\w*])/g, "$1<i>$2</i>");
  html = html.replace(/(^|[^\w])_(?=\S)([^_]+?)(?<=\S)_(?!\w)/g, "$1<i>$2</i>");
  return html;
}

/** The plain-text retry of an HTML chunk: tags dropped, links as `label (url)`, entities decoded. */
export function htmlToPlainText(html: string): string {
  return html
    .replace(/<a href="([^"]*)">(.*?)<\/a>/g, (_m, url: string, label: string) => `${label} (${url})`)
    .replace(/<[^>]+>/g, "")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}
