/**
 * OpenClaw's `/commands` reply (`buildCommandsMessagePaginated`), listing what this service runs
 * (`commands.list`'s entries, the one source). Unpaged where the platform has no list controls
 * (`ℹ️ Slash commands`, each category's title and its `  /name (/alias, …) - description` lines,
 * then its `More:` line); on Telegram in pages of OpenClaw's 8 (`ℹ️ Commands (1/2)`) under an
 * inline keyboard (`◀ Prev`, `1/2`, `Next ▶`), whose presses edit the message to their page
 * (docs/channels.md, "Chat commands").
 */

/** OpenClaw's category titles, in its order. */
const CATEGORY_TITLES: ReadonlyArray<[string, string]> = [
  ["session", "Session"],
  ["options", "Options"],
  ["status", "Status"],
  ["management", "Management"],
];

/** OpenClaw's page size on Telegram (`COMMANDS_PER_PAGE`). */
export const COMMANDS_PER_PAGE = 8;

export type ListedCommand = { name: string; description: string; category: string; aliases?: readonly string[] };

/** A command line under its category's title (OpenClaw's list item). */
type ListItem = { title: string; line: string };

export function commandsListText(commands: readonly ListedCommand[]): string {
  return ["ℹ️ Slash commands", listText(listItems(commands), "  "), "More: /tools for available capabilities"].join(
    "\n\n",
  );
}

/** One page of the paged list: its text and where it stands among the pages. */
export type CommandsPage = { text: string; page: number; pages: number };

/**
 * Page `page` of the list (past the last: the last page), as OpenClaw 2026.9.6 put it on Telegram:
 * `ℹ️ Commands (<page>/<pages>)`, then that page's lines under their categories' titles. `indent`:
 * the lines' two leading spaces, which OpenClaw's edit of a page keeps (plain text) and its first
 * page, sent as Markdown, loses (both recorded).
 */
export function commandsPage(commands: readonly ListedCommand[], page: number, indent: boolean): CommandsPage {
  const items = listItems(commands);
  const pages = Math.max(1, Math.ceil(items.length / COMMANDS_PER_PAGE));
  const current = Math.min(Math.max(1, page), pages);
  const shown = items.slice((current - 1) * COMMANDS_PER_PAGE, current * COMMANDS_PER_PAGE);
  return { text: `ℹ️ Commands (${current}/${pages})\n\n${listText(shown, indent ? "  " : "")}`, page: current, pages };
}

export type KeyboardButton = { text: string; callback_data: string };

/** Telegram's bound on a button's `callback_data` (1-64 bytes); longer data fails the whole send (`BUTTON_DATA_INVALID`). */
export const TELEGRAM_CALLBACK_DATA_MAX_BYTES = 64;

/**
 * OpenClaw's keyboard under a page (`buildCommandsPaginationKeyboard`): `◀ Prev` unless on the first
 * page, the page counter (a no-op), `Next ▶` unless on the last; each button's data names the
 * agent (`commands_page_2:main`). One row. OpenClaw appends the agent whatever its length; an agent
 * id may be 64 characters, so where the agent would take a button's data past Telegram's 64 bytes
 * the keyboard's data leaves it out (`commands_page_2`) and a press pages the chat's own agent.
 */
export function commandsPageKeyboard(page: number, pages: number, agentId: string): KeyboardButton[][] {
  const row = (suffix: string) => {
    const button = (text: string, target: number | "noop") => ({
      text,
      callback_data: `commands_page_${target}${suffix}`,
    });
    return [
      ...(page > 1 ? [button("◀ Prev", page - 1)] : []),
      button(`${page}/${pages}`, "noop"),
      ...(page < pages ? [button("Next ▶", page + 1)] : []),
    ];
  };
  const named = row(`:${agentId}`);
  const fits = named.every(
    (button) => new TextEncoder().encode(button.callback_data).byteLength <= TELEGRAM_CALLBACK_DATA_MAX_BYTES,
  );
  return [fits ? named : row("")];
}

/**
 * A page button's data (`commands_page_<n|noop>[:<agent>]`, OpenClaw's pattern): the page asked
 * for (`noop`: the counter, answered and nothing else), or null when the data is no page button's
 * (it is then an ordinary press). A page that is no positive number is a no-op, as in OpenClaw.
 */
export function commandsPageOfData(data: string): { page: number | "noop"; agentId?: string } | null {
  const match = /^commands_page_(\d+|noop)(?::(.+))?$/.exec(data.trim());
  if (!match) return null;
  const page = match[1] === "noop" ? 0 : Number(match[1]);
  // The agent goes back into the new page's buttons: only an id's characters, else the chat's agent.
  const agentId = match[2]?.trim();
  const named = agentId && /^[\w-]{1,64}$/.test(agentId) ? { agentId } : {};
  return { page: Number.isSafeInteger(page) && page >= 1 ? page : "noop", ...named };
}

function listItems(commands: readonly ListedCommand[]): ListItem[] {
  return CATEGORY_TITLES.flatMap(([category, title]) =>
    commands
      .filter((command) => command.category === category)
      .map((command) => ({ title, line: commandLine(command) })),
  );
}

/** The items under their titles, a blank line before each new title (OpenClaw's `formatCommandList`). */
function listText(items: readonly ListItem[], indent: string): string {
  const lines: string[] = [];
  items.forEach((item, index) => {
    if (item.title !== items[index - 1]?.title) lines.push(...(index > 0 ? [""] : []), item.title);
    lines.push(`${indent}${item.line}`);
  });
  return lines.join("\n");
}

/** `/think (/thinking, /t) - Set thinking level.`: the aliases other than the name itself. */
function commandLine(command: ListedCommand): string {
  const aliases = (command.aliases ?? []).filter((alias) => alias !== `/${command.name}`);
  return `/${command.name}${aliases.length ? ` (${aliases.join(", ")})` : ""} - ${command.description}`;
}
