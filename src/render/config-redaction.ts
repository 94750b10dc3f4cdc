import { urlForDisplay } from "../secrets/url-secrets";

/**
 * Credentials inside a tenant config's URLs, hidden the way OpenClaw's `config.get` hides them
 * (src/config/redact-snapshot.ts, packages/net-policy/src/redact-sensitive-url.ts): a URL value
 * with a user or password, or with a credential-named query parameter, is answered as the
 * sentinel `__OPENCLAW_REDACTED__`, and a write that sends the sentinel back keeps the stored
 * value; so is every plain secret value a tenant may write (`hooks.token`, channel tokens and
 * signing secrets). Any other URL that carries a secret OpenClaw's rule misses (a capability
 * path such as `hooks.slack.com/services/…/<secret>`, a query such as `?k=` or `?pwd=`, a
 * fragment such as `#token=`) is answered as its origin only (`https://hooks.slack.com/…`,
 * secrets/url-secrets.ts), and a write that sends that back keeps the stored value too.
 * Everything else is not a credential: secrets are named (`apiKey`/`secret` SecretRefs into the
 * tenant store, `apiKeySecret` worker secret names) and stay as they are.
 */

/** OpenClaw's redaction marker (src/config/redact-sentinel.ts). */
export const REDACTED_SENTINEL = "__OPENCLAW_REDACTED__";

/** OpenClaw's credential-named URL query parameters (lowercased, `-` as `_`). */
const SENSITIVE_QUERY_NAMES: ReadonlySet<string> = new Set([
  "token",
  "key",
  "api_key",
  "apikey",
  "secret",
  "access_token",
  "auth_token",
  "password",
  "pass",
  "passwd",
  "auth",
  "jwt",
  "session",
  "id_token",
  "code",
  "client_secret",
  "app_secret",
  "hook_token",
  "refresh_token",
  "signature",
  "x_amz_signature",
  "x_amz_security_token",
  "private_key",
  "credential",
  "authorization",
  "sig",
  "x_api_key",
  "x_access_token",
  "x_auth_token",
]);
const SUFFIXED_TOKEN_NAME_RE = /(?:^|_)token(?:_[a-f0-9]{16,})?$/;

/** Keys whose values are URLs in this service's config (`baseUrl`, `url`, `webhookUrl`). */
function isUrlKey(key: string): boolean {
  return key === "url" || key.endsWith("Url");
}

/**
 * Keys whose string value is itself a secret (`hooks.token`, a channel's `botToken`,
 * `webhookSecret`, `signingSecret`): always answered as the sentinel. The same keys holding a
 * store SecretRef (an object) are names, not values, and are shown as written.
 */
const SECRET_VALUE_KEYS: ReadonlySet<string> = new Set([
  "token",
  "botToken",
  "appToken",
  "webhookSecret",
  "signingSecret",
]);

function isRedactedKey(key: string, value: unknown): boolean {
  if (typeof value !== "string") return false;
  return SECRET_VALUE_KEYS.has(key) || (isUrlKey(key) && urlCarriesCredential(value));
}

/** True when a URL carries a credential: a user or password, or a credential-named query parameter. */
export function urlCarriesCredential(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.username || url.password) return true;
  for (const name of url.searchParams.keys()) {
    const normalized = name.toLowerCase().replaceAll("-", "_");
    if (SENSITIVE_QUERY_NAMES.has(normalized) || SUFFIXED_TOKEN_NAME_RE.test(normalized)) return true;
  }
  return false;
}

/** A copy of the config with every credential-bearing URL replaced by the sentinel. */
export function redactConfig<T>(config: T): T {
  return redactValue(config) as T;
}

function redactValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactValue);
  if (typeof value === "string") return HTTP_URL.test(value) ? urlForDisplay(value) : value;
  if (!isRecord(value)) return value;
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    result[key] = isRedactedKey(key, item) ? REDACTED_SENTINEL : redactValue(item);
  }
  return result;
}

/** A string value that is one http(s) URL (`baseUrl`, `webhookUrl`, `apiRoot`), not text that starts with one. */
const HTTP_URL = /^https?:\/\/\S+$/i;

export type Restored = { ok: true; value: unknown } | { ok: false; message: string };

/**
 * The config a client sent back with the sentinel where it read one: each sentinel on a URL key
 * takes the stored value at the same place (list entries matched by `id`, else by position).
 * A sentinel with nothing stored behind it, or anywhere else, is refused in OpenClaw's words.
 */
export function restoreRedacted(incoming: unknown, stored: unknown): Restored {
  try {
    return { ok: true, value: restoreValue(incoming, stored, "") };
  } catch (error) {
    if (error instanceof SentinelError) return { ok: false, message: error.message };
    throw error;
  }
}

class SentinelError extends Error {}

function restoreValue(incoming: unknown, stored: unknown, path: string): unknown {
  // A capability URL read back as its origin (`https://hooks.slack.com/…`) keeps the stored URL.
  if (typeof incoming === "string" && typeof stored === "string" && incoming !== stored) {
    if (HTTP_URL.test(stored) && urlForDisplay(stored) === incoming) return stored;
  }
  if (incoming === REDACTED_SENTINEL) {
    throw new SentinelError(
      `Reserved redaction sentinel "${REDACTED_SENTINEL}" is not valid config data (${path || "<root>"}).`,
    );
  }
  if (Array.isArray(incoming)) {
    const storedList = Array.isArray(stored) ? stored : [];
    return incoming.map((item, index) => {
      const id = isRecord(item) && typeof item.id === "string" ? item.id : undefined;
      const byId = id === undefined ? undefined : storedList.find((entry) => isRecord(entry) && entry.id === id);
      return restoreValue(item, id === undefined ? storedList[index] : byId, `${path}[${index}]`);
    });
  }
  if (!isRecord(incoming)) return incoming;
  const storedRecord = isRecord(stored) ? stored : {};
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(incoming)) {
    const childPath = path ? `${path}.${key}` : key;
    if (item === REDACTED_SENTINEL && (isUrlKey(key) || SECRET_VALUE_KEYS.has(key))) {
      if (typeof storedRecord[key] !== "string") {
        throw new SentinelError(`Sentinel value "${REDACTED_SENTINEL}" in key ${childPath} is not valid as real data`);
      }
      result[key] = storedRecord[key];
    } else {
      result[key] = restoreValue(item, storedRecord[key], childPath);
    }
  }
  return result;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
