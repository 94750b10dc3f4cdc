import { formatLongUtc, formatShortUtc } from "../util/utc-text";

/**
 * OpenClaw's `/status` card (2026.9.6, recorded in /work/notes/rec46: chat46-cmd.json for
 * Telegram, chat46-slack.json for Slack) with the fields this service knows. Its lines are
 * OpenClaw's; a line this service cannot fill truthfully (gateway and system uptime, auth,
 * cache, context use, execution, runtime, queue, a channel's rich-message hint) is left out
 * (docs/channels.md, "Chat commands"). Pure: the caller gathers the facts.
 */

/** What the card shows. */
export type StatusFacts = {
  /** This service's name and version, in place of OpenClaw's `2026.9.6 (eb377ac)`. */
  version: string;
  /** The model the session's runs use (`provider/model`). */
  model: string;
  sessionKey: string;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  /** When the session was created and last updated, epoch ms. */
  createdAt: number;
  updatedAt: number;
  thinkingLevel: string;
  fastMode: boolean;
  /** A group session's activation (`👥 Activation`): answering every message or mentions only. */
  activation?: "always" | "mention";
  now: number;
};

/** One line of the card: its label (OpenClaw's emoji and word) and its value; `section` groups lines in the text form. */
type StatusLine = { label: string; value: string; section: number };

function statusLines(facts: StatusFacts): StatusLine[] {
  const updated = facts.now - facts.updatedAt < MINUTE_MS ? "just now" : `${ago(facts.now - facts.updatedAt)} ago`;
  return [
    { label: "🧠 Model", value: facts.model, section: 1 },
    { label: "🧮 Tokens", value: `${facts.inputTokens} in / ${facts.outputTokens} out`, section: 2 },
    { label: "💵 Cost", value: `$${facts.costUsd.toFixed(4)}`, section: 2 },
    {
      label: "🧵 Session",
      value: `${facts.sessionKey} • duration ${duration(facts.now - facts.createdAt)} • updated ${updated}`,
      section: 3,
    },
    { label: "🎛️ Modes", value: `think ${facts.thinkingLevel} · fast ${facts.fastMode ? "on" : "off"}`, section: 4 },
    ...(facts.activation ? [{ label: "👥 Activation", value: facts.activation, section: 4 }] : []),
  ];
}

function title(facts: StatusFacts): string {
  return `🦞 OpenClaw ${facts.version}`;
}

/** The card as text, as OpenClaw sends it to Telegram (and answers `chat.send`). */
export function statusCardText(facts: StatusFacts): string {
  const at = new Date(facts.now);
  const head = [title(facts), `Current time: ${formatLongUtc(at)} (UTC)`, `Reference UTC: ${formatShortUtc(at)}`];
  const lines = statusLines(facts);
  const sections = [...new Set(lines.map((line) => line.section))].map((section) =>
    lines
      .filter((line) => line.section === section)
      .map((line) => `${line.label}: ${line.value}`)
      .join("\n"),
  );
  return [head.join("\n"), ...sections].join("\n\n");
}

/** A Slack Block Kit block (the card's header, context and data table). */
export type SlackBlock = Record<string, unknown>;

/** The card as OpenClaw posts it to Slack: a text fallback (the table as tab-separated rows) and Block Kit blocks. */
export function statusCardSlack(facts: StatusFacts): { text: string; blocks: SlackBlock[] } {
  const context = `${formatLongUtc(new Date(facts.now))} (UTC)`;
  const rows = [["Item", "Value"], ...statusLines(facts).map((line) => [line.label, line.value])];
  const text = [title(facts), "", context, "", "Session status (table)", ...rows.map((row) => row.join("\t"))].join(
    "\n",
  );
  const blocks: SlackBlock[] = [
    { type: "header", text: { type: "plain_text", text: title(facts), emoji: true } },
    { type: "context", elements: [{ type: "mrkdwn", text: context, verbatim: true }] },
    {
      type: "data_table",
      caption: "Session status",
      rows: rows.map((row) => row.map((cell) => ({ type: "raw_text", text: cell }))),
      row_header_column_index: 0,
    },
  ];
  return { text, blocks };
}

const SECOND_MS = 1_000;
const MINUTE_MS = 60 * SECOND_MS;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** `20s`, `6m 53s`, `4h 48m`, `2d 3h` (OpenClaw's two largest units). */
function duration(ms: number): string {
  const units: Array<[number, string]> = [
    [DAY_MS, "d"],
    [HOUR_MS, "h"],
    [MINUTE_MS, "m"],
    [SECOND_MS, "s"],
  ];
  let rest = Math.max(0, Math.floor(ms / SECOND_MS) * SECOND_MS);
  const parts: string[] = [];
  for (const [size, unit] of units) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0 || (parts.length > 0 && parts.length < 2)) parts.push(`${count}${unit}`);
    if (parts.length === 2) break;
  }
  return parts.length > 0 ? parts.join(" ") : "0s";
}

/** `5m`, `3h`, `2d`: how long ago, in its largest unit. */
function ago(ms: number): string {
  if (ms >= DAY_MS) return `${Math.floor(ms / DAY_MS)}d`;
  if (ms >= HOUR_MS) return `${Math.floor(ms / HOUR_MS)}h`;
  return `${Math.floor(ms / MINUTE_MS)}m`;
}
