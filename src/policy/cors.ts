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
