import { describeSecretRef, type StoreSecretRef } from "../../protocol/secrets";
import { deploymentKeyRefusal } from "../../secrets/deployment-keys";
import { boundKeyTransportRefusal } from "../../secrets/key-transport";
import { RunnerError, type RunnerRequest } from "./runner";

/**
 * A runner's credential from where its config says: a `store` SecretRef (the tenant's secret
 * store, within the entry's allowedHosts) or a deployment key named MODEL_KEY_* (granted to the
 * tenant by the operator, sent only to the hosts it is bound to). Failures name the reference
 * and the host, never a value. Each value handed out is remembered on the request, so any error
 * of the attempt can be redacted.
 */
export async function runnerCredential(
  request: Pick<RunnerRequest, "deploymentKey" | "storeSecret" | "credentials" | "outbound">,
  source: { ref?: StoreSecretRef | undefined; deploymentSecret?: string | undefined; field: string },
  destination: string,
): Promise<string | undefined> {
  const url = new URL(destination);
  const transportRefusal = boundKeyTransportRefusal(url, request.outbound.allowLoopback);
  const host = url.hostname.toLowerCase();
  const value = source.ref
    ? await storeCredential(request, source.ref, source.field, host, transportRefusal)
    : source.deploymentSecret
      ? await deploymentCredential(request, source.deploymentSecret, host, transportRefusal)
      : undefined;
  if (value) request.credentials.add(value);
  return value;
}

async function storeCredential(
  request: Pick<RunnerRequest, "storeSecret">,
  ref: StoreSecretRef,
  field: string,
  host: string,
  transportRefusal: string | null,
): Promise<string> {
  const reference = describeSecretRef(ref);
  let resolved: Awaited<ReturnType<RunnerRequest["storeSecret"]>>;
  try {
    resolved = await request.storeSecret(ref.id);
  } catch (error) {
    throw new RunnerError(`${field} secret reference ${reference} could not be read: ${(error as Error).message}`);
  }
  if (!resolved) {
    throw new RunnerError(
      `${field} secret reference ${reference} is not set: no entry "${ref.id}" in this tenant's secret store (secrets.store.set)`,
    );
  }
  if (resolved.allowedHosts.length > 0 && !resolved.allowedHosts.includes(host)) {
    throw new RunnerError(
      `Secret "${ref.id}" is not allowed for host "${host}" (its allowedHosts: ${resolved.allowedHosts.join(", ")})`,
    );
  }
  // An entry bound to hosts goes only to their TLS endpoint (no binding: the tenant's own choice).
  if (resolved.allowedHosts.length > 0 && transportRefusal)
    throw new RunnerError(`Secret "${ref.id}" is bound to its allowedHosts: ${transportRefusal}`);
  return resolved.value;
}

async function deploymentCredential(
  request: Pick<RunnerRequest, "deploymentKey">,
  name: string,
  host: string,
  transportRefusal: string | null,
): Promise<string> {
  const key = await request.deploymentKey(name);
  const refused =
    deploymentKeyRefusal(name, host, key) ??
    (transportRefusal && `model API key secret ${name} is bound to host "${host}": ${transportRefusal}`);
  if (refused || !key.value) throw new RunnerError(refused ?? `model API key secret ${name} is not set`);
  return key.value;
}
