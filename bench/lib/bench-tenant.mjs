// The tenants the bench measures. A benchmark measures work, not the service's refusals: every
// tenant it uses runs with its limits raised through the admin API, as an operator raises a
// large tenant's (docs/operations.md "Tenant limits": an operator value may be above the
// deployment default). The flood suite sets its flooding tenant's limits itself: its refusals
// are what it measures, and it reports them as such.
import { httpClient } from "./http.mjs";

/** The admin token of `.dev.vars.example` (wrangler dev and --direct both read it). */
export const BENCH_ADMIN_TOKEN = "dev-admin-token";
/** The tenant the dev operator token reaches (the versus, http, gateway… suites). */
export const DEFAULT_TENANT = "default";

/**
 * Limits no bench workload reaches: the versus suite alone starts ~700 runs in a few minutes
 * (600 a minute by default) and opens 5,000 sockets (10,000 by default, with the floor's).
 */
export const BENCH_LIMITS = Object.freeze({
  runsInFlight: 10_000,
  runsQueued: 100_000,
  runStartsPerMinute: 1_000_000,
  toolsPerMinute: 1_000_000,
  completionsPerMinute: 1_000_000,
  searchesPerMinute: 100_000,
  sockets: 100_000,
  sessions: 1_000_000,
});

/**
 * Deployment vars of the bench's own server. Every bench client connects from 127.0.0.1, so the
 * bound on unauthenticated sockets per address (64 by default, meant for one client of a
 * deployment among many) would refuse a burst of 100 handshakes from "one client"; raised to
 * the per-tenant bound's scale for the bench only.
 */
export const BENCH_SERVER_VARS = Object.freeze({
  GATEWAY_PREAUTH_SOCKETS: "20000",
  GATEWAY_PREAUTH_SOCKETS_PER_ADDRESS: "20000",
  // The channel inbox's lanes (docs/channels.md "A busy bot"): 1 starts one turn at a time.
  ...(process.env.CHANNEL_INBOX_LANES ? { CHANNEL_INBOX_LANES: process.env.CHANNEL_INBOX_LANES } : {}),
});

/** Sets `limits` as the operator's values for `tenantId`. */
export async function setTenantLimits(baseUrl, tenantId, limits, signal) {
  const admin = httpClient(baseUrl, { token: BENCH_ADMIN_TOKEN, signal });
  await admin.request("PUT", `/v1/admin/tenants/${encodeURIComponent(tenantId)}/limits`, { body: limits });
}

/**
 * A new tenant with BENCH_LIMITS and a token of `scopes`: `{ admin, client, token }` (`client`
 * is an HTTP client under `/t/<id>` with that token).
 */
export async function benchTenant(baseUrl, signal, id, scopes = ["operator.read", "operator.write", "operator.admin"]) {
  const admin = httpClient(baseUrl, { token: BENCH_ADMIN_TOKEN, signal });
  await admin.post("/v1/admin/tenants", { id }, { expect: 201 });
  await setTenantLimits(baseUrl, id, BENCH_LIMITS, signal);
  const issued = JSON.parse((await admin.post(`/v1/admin/tenants/${id}/tokens`, { scopes }, { expect: 201 })).text);
  return { admin, token: issued.token, client: httpClient(`${baseUrl}/t/${id}`, { token: issued.token, signal }) };
}
