import type { TenantConfig } from "../protocol/config";
import { runnerFacts } from "../protocol/runner-specs/runner-declarations";
import type { DeploymentKeyGrant } from "../protocol/secrets";

/**
 * Who may use a deployment key (a MODEL_KEY_* worker secret, shared by every tenant) and where
 * it may go. Two operator settings decide, and a tenant's config decides neither:
 * - the binding: DEPLOYMENT_KEY_HOSTS (a var, JSON `{ "MODEL_KEY_OPENAI": ["api.openai.com"] }`)
 *   names the hosts each key may be sent to; a key it does not name is sent nowhere;
 * - the grant: the admin API grants a key to a tenant (kept in the tenant's storage);
 *   DEV_DEPLOYMENT_KEY_GRANTS (comma-separated names, local development) grants to DEFAULT_TENANT.
 * Pure decisions; the tenant object keeps the grants, the run executor asks before each use.
 */

export type DeploymentKeyEnv = {
  DEPLOYMENT_KEY_HOSTS?: unknown;
  DEV_DEPLOYMENT_KEY_GRANTS?: unknown;
  DEFAULT_TENANT?: unknown;
};

/** What a run learns of a key it names: whether this tenant holds a grant, its hosts, its value. */
export type DeploymentKey = { granted: boolean; hosts: readonly string[]; value: string | undefined };

/** The hosts a key is bound to (lower-cased); none when DEPLOYMENT_KEY_HOSTS does not name it or is not valid. */
export function deploymentKeyHosts(env: DeploymentKeyEnv, name: string): string[] {
  const bindings = parseBindings(env.DEPLOYMENT_KEY_HOSTS);
  const hosts = bindings && Object.hasOwn(bindings, name) ? bindings[name] : undefined;
  return Array.isArray(hosts)
    ? hosts.filter((host): host is string => typeof host === "string").map((host) => host.toLowerCase())
    : [];
}

/** The var as JSON text (a .dev.vars line or a wrangler var) or as a TOML table; null when neither. */
function parseBindings(raw: unknown): Record<string, unknown> | null {
  let value = raw;
  if (typeof raw === "string") {
    try {
      value = JSON.parse(raw);
    } catch {
      return null;
    }
  }
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

/** Keys DEV_DEPLOYMENT_KEY_GRANTS grants to the default tenant (none for any other tenant). */
export function devGrants(env: DeploymentKeyEnv, tenantId: string | undefined): DeploymentKeyGrant[] {
  if (!tenantId || tenantId !== env.DEFAULT_TENANT || typeof env.DEV_DEPLOYMENT_KEY_GRANTS !== "string") return [];
  return [
    ...new Set(
      env.DEV_DEPLOYMENT_KEY_GRANTS.split(",")
        .map((name) => name.trim())
        .filter((name) => name !== ""),
    ),
  ].map((name) => ({ name, source: "dev" as const }));
}

/**
 * Why `name` may not be sent to `host` (a run error naming the key and the host, never the
 * value), or null when it may: granted first, then bound to the host, then set.
 */
export function deploymentKeyRefusal(name: string, host: string, key: DeploymentKey): string | null {
  if (!key.granted) {
    return `model API key secret ${name} is not granted to this tenant, so it is not sent to host "${host}" (the deployment's operator grants deployment keys; a tenant's own key goes in its secret store, named by apiKey)`;
  }
  if (!key.hosts.includes(host)) {
    const bound =
      key.hosts.length > 0 ? `it is bound to: ${key.hosts.join(", ")}` : "DEPLOYMENT_KEY_HOSTS binds it to no host";
    return `model API key secret ${name} is not allowed for host "${host}" (${bound})`;
  }
  if (!key.value) return `model API key secret ${name} is not set`;
  return null;
}

/** Every deployment key a config's runners name (agents.defaults and each listed agent), once each. */
export function deploymentKeyNames(config: TenantConfig): string[] {
  const runners = [config.agents?.defaults?.runner, ...(config.agents?.list ?? []).map((agent) => agent.runner)];
  const names = runners.flatMap((runner) => {
    const name = runner ? runnerFacts(runner).apiKeySecret : undefined;
    return name ? [name] : [];
  });
  return [...new Set(names)];
}

/** Why a config may not be written with these grants (it names keys not granted), or null. */
export function ungrantedKeysRefusal(config: TenantConfig, grants: readonly DeploymentKeyGrant[]): string | null {
  const granted = new Set(grants.map((grant) => grant.name));
  const missing = deploymentKeyNames(config).filter((name) => !granted.has(name));
  if (missing.length === 0) return null;
  return `apiKeySecret names deployment key${missing.length > 1 ? "s" : ""} ${missing.join(", ")} not granted to this tenant (the deployment's operator grants deployment keys; a tenant's own key goes in its secret store, named by apiKey)`;
}
