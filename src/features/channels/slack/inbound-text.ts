/**
 * A Slack message's text as the model reads it (issue 46, 8). Slack sends its own markup: every
 * URL as an autolink (`<https://x.y/z>`, `<https://x.y/z|label>` for a labelled link or a typed
 * `www.x.y`), `&`, `<` and `>` escaped as `&amp;`, `&lt;`, `&gt;`. The model gets the link as
 * text (`https://x.y/z`; `label (https://x.y/z)`, OpenClaw's form of a labelled link in plain
 * text) and the characters the user typed. User, channel and special mentions (`<@U…>`, `<#C…|…>`,
 * `<!here>`) stay Slack's markup, as the real gateway 2026.9.6 gives them (recorded): the bot's
 * mention is read from them, and the envelope lists `mentioned_user_ids` from them. Pure.
 */

/** A link token (`<scheme:…>` with an optional `|label`): http(s), mailto, tel and the like. */
const LINK = /<((?:https?|mailto|tel|ftp):[^<>|\s]*)(?:\|([^<>]*))?>/gi;

export function slackInboundText(text: string): string {
  let out = "";
  let last = 0;
  for (const match of text.matchAll(LINK)) {
    out += unescapeEntities(text.slice(last, match.index));
    out += linkText(unescapeEntities(match[1]!), match[2] === undefined ? undefined : unescapeEntities(match[2]));
    last = match.index + match[0].length;
  }
  return out + unescapeEntities(text.slice(last));
}

/** `url`, or `label (url)` when the label says something the URL does not. */
function linkText(url: string, label: string | undefined): string {
  const shown = label?.trim();
  if (!shown || shown === url || shown === withoutScheme(url)) return url;
  return `${shown} (${url})`;
}

/** `https://www.x.y/` → `www.x.y/`, `mailto:a@b.c` → `a@b.c`: what a user typed when Slack linked it. */
function withoutScheme(url: string): string {
  return url.replace(/^(?:https?:\/\/|mailto:|tel:|ftp:\/\/)/i, "");
}

/** Slack's three entities, `&amp;` last so `&amp;lt;` stays the literal text `&lt;`. */
function unescapeEntities(text: string): string {
  return text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
}
