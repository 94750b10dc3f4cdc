import type { SessionObject } from "./session/session-object";
import type { TenantObject } from "./tenant/tenant-object";

/** Bindings and vars of the worker (wrangler.toml, .dev.vars, secrets). */
export interface Env {
  SESSIONS: DurableObjectNamespace<SessionObject>;
  TENANTS: DurableObjectNamespace<TenantObject>;
  /** sessions_spawn attachments. */
  ATTACHMENTS: R2Bucket;
  /** OAuth clients, grants and tokens of the MCP endpoint (@cloudflare/workers-oauth-provider). */
  OAUTH_KV: KVNamespace;
  /** Tenant served at the root as well as under /t/<id>. */
  DEFAULT_TENANT?: string;
  /** Deployment secret guarding /v1/admin/*. Unset = admin API closed. */
  ADMIN_TOKEN?: string;
  /** Dev-only operator token of DEFAULT_TENANT with every operator scope. */
  DEV_OPERATOR_TOKEN?: string;
  /** Signs run tokens (HMAC-SHA256). Webhook runs need it. */
  RUN_TOKEN_SECRET?: string;
}
