/**
 * The secrets a URL itself carries: capability URLs (`hooks.slack.com/services/…/<secret>`,
 * `discord.com/api/webhooks/<id>/<secret>`), a token in the query (`?k=`, `?pwd=`) or the
 * fragment (`#token=`), a user and password. Pure. What a sender declares for redaction
 * (`urlSecrets`) and what a read-only reader or a log line is shown instead (`urlForDisplay`).
 */

/** What a URL with secrets is shown as after its origin (`https://hooks.slack.com/…`). */
export const URL_ELISION = "/…";

/** Hosts whose webhook URLs are capabilities: every path segment after the prefix is the secret. */
const CAPABILITY_PATHS: ReadonlyArray<{ host: RegExp; prefix: string }> = [
  { host: /^hooks\.slack\.com$/i, prefix: "/services/" },
  { host: /^hooks\.slack\.com$/i, prefix: "/workflows/" },
  { host: /^hooks\.slack\.com$/i, prefix: "/triggers/" },
  { host: /^(?:\w+\.)?discord(?:app)?\.com$/i, prefix: "/api/webhooks/" },
  { host: /\.webhook\.office\.com$/i, prefix: "/" },
  { host: /^chat\.googleapis\.com$/i, prefix: "/" },
];
/** A run of letters and digits this long, mixing both, reads as a key (not `key-probe-1234`, not a UUID). */
const KEY_RUN = /[A-Za-z0-9]{16,}/g;
/** Query values shorter than this are not searched for in text (they would match by chance). */
const QUERY_VALUE_MIN_CHARS = 4;

/**
 * Every secret part of the URL (user, password, query values, fragment, capability and
 * key-like path segments), for `redactCredentials`; empty when it is not a URL or has none.
 */
export function urlSecrets(value: string): string[] {
  const url = parse(value);
  if (!url) return [];
  const secrets = [url.username, url.password].filter(Boolean);
  for (const item of url.searchParams.values()) if (item.length >= QUERY_VALUE_MIN_CHARS) secrets.push(item);
  const fragment = url.hash.slice(1);
  if (fragment) {
    secrets.push(fragment);
    for (const item of new URLSearchParams(fragment).values())
      if (item.length >= QUERY_VALUE_MIN_CHARS) secrets.push(item);
  }
  secrets.push(...secretSegments(url));
  return [...new Set(secrets.flatMap((secret) => [secret, safeDecode(secret)]))];
}

/**
 * The URL as a read-only reader or a log line may see it: unchanged when it carries no secret,
 * else its origin only (`https://hooks.slack.com/…`). A query or a fragment always counts as
 * a secret here: a parameter's name does not say whether its value is one (`?k=`, `?pwd=`).
 */
export function urlForDisplay(value: string): string {
  const url = parse(value);
  if (!url) return value;
  const carries = url.username || url.password || url.search || url.hash || secretSegments(url).length > 0;
  return carries ? `${url.origin}${URL_ELISION}` : value;
}

function secretSegments(url: URL): string[] {
  const capability = CAPABILITY_PATHS.find(
    ({ host, prefix }) => host.test(url.hostname) && url.pathname.startsWith(prefix),
  );
  if (capability) return url.pathname.slice(capability.prefix.length).split("/").filter(Boolean);
  return url.pathname.split("/").filter(looksLikeKey);
}

/** A path segment holding a long run of letters and digits mixing both (an API key, a webhook secret). */
function looksLikeKey(segment: string): boolean {
  return [...segment.matchAll(KEY_RUN)].some(([run]) => /[A-Za-z]/.test(run) && /\d/.test(run));
}

function parse(value: string): URL | null {
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
