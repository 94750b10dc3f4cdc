/**
 * OpenClaw's `/commands` reply in its unpaged form (`buildCommandsMessagePaginated` on a surface
 * without list controls: `ℹ️ Slash commands`, each category's title and its `  /name (/alias, …) -
 * description` lines, then its `More:` line), listing what this service runs (`commands.list`'s
 * entries, the one source). OpenClaw pages its ~50 commands on Telegram (`ℹ️ Commands (1/7)` with
 * an inline keyboard); this service's dozen need no pages, so every door gets the unpaged form.
 */

/** OpenClaw's category titles, in its order. */
const CATEGORY_TITLES: ReadonlyArray<[string, string]> = [
  ["session", "Session"],
  ["options", "Options"],
  ["status", "Status"],
  ["management", "Management"],
];

export type ListedCommand = { name: string; description: string; category: string; aliases?: readonly string[] };

export function commandsListText(commands: readonly ListedCommand[]): string {
  const sections = CATEGORY_TITLES.flatMap(([category, title]) => {
    const lines = commands.filter((command) => command.category === category).map((c) => `  ${commandLine(c)}`);
    return lines.length ? [[title, ...lines].join("\n")] : [];
  });
  return ["ℹ️ Slash commands", ...sections, "More: /tools for available capabilities"].join("\n\n");
}

/** `/think (/thinking, /t) - Set thinking level.`: the aliases other than the name itself. */
function commandLine(command: ListedCommand): string {
  const aliases = (command.aliases ?? []).filter((alias) => alias !== `/${command.name}`);
  return `/${command.name}${aliases.length ? ` (${aliases.join(", ")})` : ""} - ${command.description}`;
}
