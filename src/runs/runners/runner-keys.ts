import { describeSecretRef, type StoreSecretRef } from "../../protocol/secrets";
import { RunnerError, type RunnerRequest } from "./runner";

/**
 * A runner's credential from where its config says: a `store` SecretRef (the tenant's secret
 * store) or a deployment secret named MODEL_KEY_*. Failures name the reference, never a value.
 */
export async function runnerCredential(
  request: Pick<RunnerRequest, "secret" | "storeSecret">,
  source: { ref?: StoreSecretRef | undefined; deploymentSecret?: string | undefined; field: string },
  destination: string,
): Promise<string | undefined> {
  if (source.ref) {
    const reference = describeSecretRef(source.ref);
    let resolved: Awaited<ReturnType<RunnerRequest["storeSecret"]>>;
    try {
      resolved = await request.storeSecret(source.ref.id);
    } catch (error) {
      throw new RunnerError(
        `${source.field} secret reference ${reference} could not be read: ${(error as Error).message}`,
      );
    }
    if (!resolved) {
      throw new RunnerError(
        `${source.field} secret reference ${reference} is not set: no entry "${source.ref.id}" in this tenant's secret store (secrets.store.set)`,
      );
    }
    const host = new URL(destination).hostname.toLowerCase();
    if (resolved.allowedHosts.length > 0 && !resolved.allowedHosts.includes(host)) {
      throw new RunnerError(
        `Secret "${source.ref.id}" is not allowed for host "${host}" (its allowedHosts: ${resolved.allowedHosts.join(", ")})`,
      );
    }
    return resolved.value;
  }
  if (source.deploymentSecret) {
    const value = request.secret(source.deploymentSecret);
    if (!value) throw new RunnerError(`model API key secret ${source.deploymentSecret} is not set`);
    return value;
  }
  return undefined;
}
