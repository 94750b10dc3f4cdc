import type { z } from "zod";
import {
  adminLimitsResponseSchema,
  adminListQuerySchema,
  deploymentKeyGrantedSchema,
  deploymentKeyListSchema,
  deploymentKeyRevokedSchema,
  issuedTokenSchema,
  limitOverrideSchema,
  tenantDeletionSchema,
  tenantInfoSchema,
  tenantListSchema,
  tokenListSchema,
} from "../../protocol/admin";
import { createTenantBodySchema, issueTokenBodySchema } from "../../protocol/http";
import { allUsageQuerySchema, allUsageSchema, tenantUsageSchema, usageRangeSchema } from "../../protocol/usage";
import {
  createdTenantSchema,
  deploymentHealthSchema,
  healthSchema,
  reindexResultSchema,
  revokedTokenSchema,
  serviceInfoSchema,
} from "./responses";

/**
 * The core's HTTP routes (service, gateway, admin), described for the OpenAPI document (built by
 * hono-openapi, schemas from zod); each feature slice describes its own (`Slice.openApi`), and
 * http/core-app.ts composes them. A test checks the whole against the app's real routes.
 * `tenant` routes are served at the root for DEFAULT_TENANT and under /t/{tenantId}.
 */

export type Operation = {
  method: "get" | "post" | "put" | "patch" | "delete";
  /** Hono path syntax (`:param`), as the route is registered. */
  path: string;
  scope: "root" | "admin" | "tenant";
  tag: string;
  summary: string;
  description?: string;
  /** Who may call it: an operator scope, a run token, the admin token, or anyone. */
  auth: "none" | "admin" | "operator.read" | "operator.write" | "operator.admin" | "run" | "operator.write or run";
  query?: z.ZodObject;
  body?: z.ZodType;
  /** Media types the body is accepted as, when not only `application/json`. */
  bodyContentTypes?: string[];
  ok: { status: number; schema?: z.ZodType; description: string; contentType?: string; text?: boolean };
  /** Error statuses besides the auth ones (added from `auth`). */
  errors?: number[];
  /** The OpenAI-compatible routes answer errors in OpenAI's shape. */
  errorShape?: "openai";
};

type Place = Pick<Operation, "scope" | "tag">;

/** A family of routes whose shared fields (where it is served, its tag, maybe its auth) are written once. */
export function operationFamily(
  family: Place & Pick<Operation, "auth">,
  operations: Omit<Operation, "scope" | "tag" | "auth">[],
): Operation[];
export function operationFamily(family: Place, operations: Omit<Operation, "scope" | "tag">[]): Operation[];
export function operationFamily(family: Place & Partial<Operation>, operations: Partial<Operation>[]): Operation[] {
  // Each overload makes the family's fields and an operation's together a whole Operation.
  return operations.map((operation) => ({ ...family, ...operation }) as Operation);
}

const ERROR_TEXT: Record<number, string> = {
  400: "Invalid input (the message names the field).",
  401: "Missing or unknown token (for this tenant).",
  403: "The token lacks the scope, or is a run token where only operators may call.",
  404: "Not found.",
  409: "Conflict.",
  415: "Unsupported content-type.",
  413: "Body over 2 MB, or a message over the per-message limit.",
  429: "Rate limited (Retry-After says when to retry).",
  502: "The chat platform refused the call or could not be reached (its own description in the body).",
  503: "The deployment cannot serve this (a deployment secret is missing); the operator has been told.",
};

export { ERROR_TEXT };

export const OPERATIONS: Operation[] = [
  // ── Service ───────────────────────────────────────────────────────────────
  {
    method: "get",
    path: "/health",
    scope: "root",
    tag: "Service",
    summary: "Liveness",
    auth: "none",
    ok: { status: 200, schema: healthSchema, description: "The service is up." },
  },
  {
    method: "get",
    path: "/openapi.json",
    scope: "root",
    tag: "Service",
    summary: "This OpenAPI 3.1 document",
    auth: "none",
    ok: { status: 200, description: "The document.", contentType: "application/json" },
  },
  {
    method: "get",
    path: "/docs",
    scope: "root",
    tag: "Service",
    summary: "API reference page (Swagger UI, served offline)",
    auth: "none",
    ok: { status: 200, description: "HTML page rendering /openapi.json.", contentType: "text/html", text: true },
  },
  {
    method: "get",
    path: "/docs/assets/:file",
    scope: "root",
    tag: "Service",
    summary: "Script and styles of the reference page",
    auth: "none",
    ok: { status: 200, description: "swagger-ui-bundle.js or swagger-ui.css.", contentType: "text/plain", text: true },
    errors: [404],
  },
  {
    method: "get",
    path: "/",
    scope: "tenant",
    tag: "Gateway",
    summary: "Gateway WebSocket (upgrade), else service info",
    description:
      "With `Upgrade: websocket` this is the OpenClaw gateway WebSocket (protocol 3 and 4): `connect.challenge`, then a `connect` request carrying `auth.token`. Without, a small JSON description. 404 on upgrade for an unknown tenant.",
    auth: "none",
    ok: { status: 200, schema: serviceInfoSchema, description: "Service info (101 Switching Protocols on upgrade)." },
    errors: [404],
  },

  // ── Admin (ADMIN_TOKEN) ───────────────────────────────────────────────────
  {
    method: "post",
    path: "/v1/admin/tenants",
    scope: "admin",
    tag: "Admin",
    summary: "Create a tenant",
    auth: "admin",
    body: createTenantBodySchema,
    ok: { status: 201, schema: createdTenantSchema, description: "Created." },
    errors: [400, 409],
  },
  {
    method: "get",
    path: "/v1/admin/tenants",
    scope: "admin",
    tag: "Admin",
    summary: "List tenants (by id, paged)",
    auth: "admin",
    query: adminListQuerySchema,
    ok: { status: 200, schema: tenantListSchema, description: "A page of tenants." },
    errors: [400],
  },
  {
    method: "get",
    path: "/v1/admin/usage",
    scope: "admin",
    tag: "Admin",
    summary: "Every tenant's billable units, tokens and estimated cost per UTC day (paged by tenant)",
    description:
      "Units the tenants' Durable Objects counted (requests, WebSocket messages, active time, SQLite rows, R2 operations and bytes), model tokens, and the estimate at Cloudflare's published prices, for `from`..`to` (default: this month). Worker requests are not metered per tenant (docs/operations.md, \"What a tenant costs\").",
    auth: "admin",
    query: allUsageQuerySchema,
    ok: { status: 200, schema: allUsageSchema, description: "A page of tenants with their usage." },
    errors: [400],
  },
  {
    method: "get",
    path: "/v1/admin/tenants/:id/usage",
    scope: "admin",
    tag: "Admin",
    summary: "A tenant's billable units, tokens and estimated cost per UTC day",
    auth: "admin",
    query: usageRangeSchema,
    ok: { status: 200, schema: tenantUsageSchema, description: "Usage per day." },
    errors: [400, 404],
  },
  {
    method: "get",
    path: "/v1/admin/tenants/:id",
    scope: "admin",
    tag: "Admin",
    summary: "A tenant with its counts",
    auth: "admin",
    ok: { status: 200, schema: tenantInfoSchema, description: "The tenant." },
    errors: [404],
  },
  {
    method: "delete",
    path: "/v1/admin/tenants/:id",
    scope: "admin",
    tag: "Admin",
    summary: "Delete a tenant with all its data (call until done)",
    description:
      "Each call does a bounded step: the first revokes every token and closes the tenant's sockets, then sessions (transcripts, runs, timers, attachments) are deleted a batch at a time, then leftover attachment files, then the tenant's config, index and secrets. 202 while work remains (call again), 200 with `done: true` at the end. Safe to repeat after a failure.",
    auth: "admin",
    ok: { status: 200, schema: tenantDeletionSchema, description: "Deleted (202 with the same body while deleting)." },
    errors: [404],
  },
  {
    method: "get",
    path: "/v1/admin/tenants/:id/tokens",
    scope: "admin",
    tag: "Admin",
    summary: "List a tenant's tokens (never their secrets)",
    auth: "admin",
    query: adminListQuerySchema,
    ok: { status: 200, schema: tokenListSchema, description: "A page of tokens, newest first." },
    errors: [400, 404],
  },
  {
    method: "post",
    path: "/v1/admin/tenants/:id/tokens",
    scope: "admin",
    tag: "Admin",
    summary: "Issue an operator token",
    auth: "admin",
    body: issueTokenBodySchema,
    ok: { status: 201, schema: issuedTokenSchema, description: "The token, shown once." },
    errors: [400, 404],
  },
  {
    method: "delete",
    path: "/v1/admin/tenants/:id/tokens/:tokenId",
    scope: "admin",
    tag: "Admin",
    summary: "Revoke a token (closes the sockets it opened)",
    auth: "admin",
    ok: { status: 200, schema: revokedTokenSchema, description: "Revoked." },
    errors: [404],
  },
  {
    method: "get",
    path: "/v1/admin/tenants/:id/deployment-keys",
    scope: "admin",
    tag: "Admin",
    summary: "List the deployment keys granted to a tenant (never their values)",
    auth: "admin",
    ok: { status: 200, schema: deploymentKeyListSchema, description: "Granted keys, with their hosts." },
    errors: [404],
  },
  {
    method: "get",
    path: "/v1/admin/tenants/:id/limits",
    scope: "admin",
    tag: "Admin",
    summary: "A tenant's limits, their use, the operator's values and the deployment's",
    auth: "admin",
    ok: { status: 200, schema: adminLimitsResponseSchema, description: "The limits." },
    errors: [404],
  },
  {
    method: "put",
    path: "/v1/admin/tenants/:id/deployment-keys/:name",
    scope: "admin",
    tag: "Admin",
    summary: "Grant a deployment key (MODEL_KEY_*) to a tenant",
    description:
      "The tenant's runners may then name it with `apiKeySecret`; it is sent only to the hosts DEPLOYMENT_KEY_HOSTS binds it to. 201 when granted now, 200 when it was granted already.",
    auth: "admin",
    ok: { status: 201, schema: deploymentKeyGrantedSchema, description: "Granted." },
    errors: [400, 404],
  },
  {
    method: "delete",
    path: "/v1/admin/tenants/:id/deployment-keys/:name",
    scope: "admin",
    tag: "Admin",
    summary: "Revoke a deployment key grant (runs naming it fail from their next attempt)",
    auth: "admin",
    ok: { status: 200, schema: deploymentKeyRevokedSchema, description: "Revoked." },
    errors: [400, 404],
  },
  {
    method: "put",
    path: "/v1/admin/tenants/:id/limits",
    scope: "admin",
    tag: "Admin",
    summary: "Set the operator's limits for a tenant (replaces them; {} goes back to the deployment's)",
    auth: "admin",
    body: limitOverrideSchema,
    ok: { status: 200, schema: adminLimitsResponseSchema, description: "The limits now." },
    errors: [400, 404],
  },
  {
    method: "post",
    path: "/v1/admin/tenants/:id/reindex",
    scope: "admin",
    tag: "Admin",
    summary: "Rebuild a tenant's session index from its session objects",
    auth: "admin",
    ok: { status: 200, schema: reindexResultSchema, description: "Rebuilt." },
    errors: [404],
  },
  {
    method: "get",
    path: "/v1/admin/health",
    scope: "admin",
    tag: "Admin",
    summary: "The deployment's missing or malformed secrets and vars, by name, with what breaks without each",
    auth: "admin",
    ok: { status: 200, schema: deploymentHealthSchema, description: "The problems (none when healthy)." },
    errors: [],
  },
];
