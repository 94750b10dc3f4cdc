/**
 * Which requests are the OpenClaw Control UI's (pure): the UI is mounted at `/` for the default
 * tenant and at `/t/<tenantId>/` per tenant, with the real gateway's routing rules (asset
 * lookup, SPA fallback for html navigations, reserved resource prefixes answered 404).
 */

/** Paths of this service's API: never the UI, whatever the Accept header says. */
const API_PREFIXES = [
  "/v1/",
  "/tools/",
  "/sessions/",
  "/mcp",
  "/oauth/",
  "/.well-known/oauth-",
  "/docs",
  "/openapi.json",
  "/health",
];
/** UI resource routes the real gateway answers itself (avatars, icons, bootstrap): 404 here, never the html. */
const RESERVED_PREFIXES = ["/api/", "/avatar/", "/__openclaw__/", "/.well-known/openclaw/"];
/** Extensions of static files: a missing one is a 404, not the SPA html. */
const STATIC_EXTENSION = /\.(js|mjs|css|json|map|svg|png|jpe?g|gif|webp|ico|txt|wasm|webmanifest|woff2?|html)$/i;
export const CONFIG_FILE = "/control-ui-config.json";
const CONFIG_PATHS = new Set([
  CONFIG_FILE,
  "/__openclaw/control-ui-config.json",
  "/__openclaw__/control-ui-config.json",
]);

export type UiRoute =
  | { kind: "redirect"; location: string }
  | { kind: "config" }
  | { kind: "asset"; path: string; immutable: boolean }
  | { kind: "missing" }
  | { kind: "html" }
  | { kind: "pass" };

/** The mount a path belongs to: `/t/<id>` or the root (default tenant). */
export function mountOf(pathname: string): { tenantId: string | null; base: string; rest: string } {
  const match = /^\/t\/([^/]+)(\/.*)?$/.exec(pathname);
  // A malformed escape names no tenant: the id stays as sent and fails the tenant id check.
  if (match) return { tenantId: safeDecode(match[1]!), base: `/t/${match[1]}`, rest: match[2] ?? "" };
  return { tenantId: null, base: "", rest: pathname };
}

/** The browser asks for a page (navigation), not JSON. */
export function acceptsHtml(accept: string | undefined): boolean {
  return accept !== undefined && /\btext\/html\b/i.test(accept);
}

/** What to do with a GET/HEAD (not a WebSocket upgrade) to `rest`, the path below the mount. */
export function classify(rest: string, search: string, base: string, accept: string | undefined): UiRoute {
  if (rest === "") return acceptsHtml(accept) ? { kind: "redirect", location: `${base}/${search}` } : { kind: "pass" };
  if (CONFIG_PATHS.has(rest)) return { kind: "config" };
  if (API_PREFIXES.some((prefix) => rest.startsWith(prefix))) return { kind: "pass" };
  if (RESERVED_PREFIXES.some((prefix) => rest.startsWith(prefix))) return { kind: "missing" };
  // A deep link's relative asset URL (`/chat/main/assets/x.js`) is the asset itself.
  const assetsAt = rest.indexOf("/assets/");
  const path = assetsAt >= 0 ? rest.slice(assetsAt) : rest;
  if (path.split("/").some((segment) => segment.startsWith("."))) return { kind: "missing" };
  if (path === "/index.html") return { kind: "html" };
  if (STATIC_EXTENSION.test(path)) return { kind: "asset", path, immutable: path.startsWith("/assets/") };
  return acceptsHtml(accept) ? { kind: "html" } : { kind: "pass" };
}

/** `./assets/x.js` in the shipped index.html → `<base>/assets/x.js`, so deep links load it too. */
export function rebase(url: string, base: string): string {
  return url.startsWith("./") ? `${base}/${url.slice(2)}` : url;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
