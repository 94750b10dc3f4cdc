import { logInfo } from "../observability/log";
import type { DeploymentKeyGrant, DeploymentKeyGrantChange } from "../protocol/secrets";
import { type DeploymentKeyEnv, deploymentKeyHosts } from "../secrets/deployment-keys";
import { DomainError } from "./errors";
import { adminTenant } from "./tenant-admin";

/**
 * The operator's grants of deployment keys to a tenant (admin API): list, grant, revoke. A
 * grant names a key only; the hosts it may go to come from DEPLOYMENT_KEY_HOSTS, and the value
 * never leaves the deployment's secrets. Listings say where each key may go and whether it is set.
 */

type GrantEnv = Pick<Env, "TENANTS"> & DeploymentKeyEnv;

export type DeploymentKeyView = DeploymentKeyGrant & { hosts: string[]; set: boolean };

export async function listDeploymentKeys(env: GrantEnv, tenantId: string) {
  const { grants } = await grantsOf(env, tenantId);
  return { tenantId, keys: grants.map((grant) => view(env, grant)) };
}

/** Grants `name`; `created` is false when it was granted already. */
export async function grantDeploymentKey(env: GrantEnv, tenantId: string, name: string) {
  const { grants, changed } = await grantsOf(env, tenantId, { grant: name });
  return { tenantId, created: changed, key: view(env, grants.find((grant) => grant.name === name)!) };
}

/** Revokes a grant made by the admin API; runs naming the key fail from their next attempt. */
export async function revokeDeploymentKey(env: GrantEnv, tenantId: string, name: string) {
  const { changed } = await grantsOf(env, tenantId, { revoke: name });
  if (!changed) throw new DomainError("not_found", `Deployment key not granted by the admin API: ${name}`);
  return { tenantId, name, revoked: true as const };
}

async function grantsOf(env: GrantEnv, tenantId: string, change?: DeploymentKeyGrantChange) {
  const tenant = await adminTenant(env, tenantId);
  const answer = await tenant.deploymentKeyGrants(change);
  if (answer.changed && change) {
    const [what, key] = "grant" in change ? ["granted", change.grant] : ["revoked", change.revoke];
    logInfo("deployment_key.changed", { tenant: tenantId, key, change: what });
  }
  return answer;
}

function view(env: GrantEnv, grant: DeploymentKeyGrant): DeploymentKeyView {
  const value = (env as Record<string, unknown>)[grant.name];
  return { ...grant, hosts: deploymentKeyHosts(env, grant.name), set: typeof value === "string" && value !== "" };
}
