import type { TenantConfig } from "../protocol/config";

/** Browser access (CORS): which origins a tenant allows. Pure; the HTTP layer applies it. */

/** The origin to echo in Access-Control-Allow-Origin, or null when the tenant does not allow it. */
export function allowedOrigin(config: TenantConfig, origin: string | undefined): string | null {
  if (!origin) return null;
  const allowed = config.gateway?.controlUi?.allowedOrigins ?? [];
  return allowed.includes("*") || allowed.includes(origin) ? origin : null;
}

export const CORS_ALLOW_METHODS = "GET, POST, PUT, PATCH, DELETE";
export const CORS_ALLOW_HEADERS = ["authorization", "content-type", "accept", "last-event-id", "idempotency-key"];
export const CORS_EXPOSE_HEADERS = "Retry-After";
/** Browsers may cache a preflight answer this long. */
export const CORS_MAX_AGE_SECONDS = 600;

/** OpenClaw's refusal of a gateway `connect` from a browser origin it does not allow. */
export const ORIGIN_NOT_ALLOWED_MESSAGE =
  "origin not allowed (open the Control UI from the gateway host or allow it in gateway.controlUi.allowedOrigins)";

export type BrowserOriginCheck =
  | { ok: true }
  | { ok: false; reason: "origin missing or invalid" | "origin not allowed" };

/**
 * OpenClaw's browser-origin rule for gateway WebSockets (src/gateway/origin-check.ts): a socket
 * opened by a browser page (it sent `Origin`) is allowed from the service's own origin and from
 * `gateway.controlUi.allowedOrigins` (or `"*"`); `null` and malformed origins are refused.
 * Clients without `Origin` (CLIs, servers) are not browsers and are not checked.
 */
export function checkBrowserOrigin(
  config: TenantConfig,
  origin: string | undefined,
  serviceOrigin: string,
): BrowserOriginCheck {
  if (origin === undefined) return { ok: true };
  const parsed = parseOrigin(origin);
  if (!parsed) return { ok: false, reason: "origin missing or invalid" };
  if (parsed === serviceOrigin.toLowerCase()) return { ok: true };
  const allowed = (config.gateway?.controlUi?.allowedOrigins ?? []).map((value) => value.toLowerCase());
  return allowed.includes("*") || allowed.includes(parsed) ? { ok: true } : { ok: false, reason: "origin not allowed" };
}

/** `scheme://host[:port]`, lowercased; null for `null`, a path, credentials or anything unparsable. */
function parseOrigin(raw: string): string | null {
  const trimmed = raw.trim();
  if (!trimmed || trimmed === "null" || !/^[a-z][a-z0-9+.-]*:\/\/[^/?#\\]+\/?$/i.test(trimmed)) return null;
  try {
    const url = new URL(trimmed);
    if (url.username || url.password || !url.host) return null;
    return (url.origin === "null" ? `${url.protocol}//${url.host}` : url.origin).toLowerCase();
  } catch {
    return null;
  }
}
