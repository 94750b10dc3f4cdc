import { isLoopbackHost } from "./outbound-url";

/**
 * A credential as a sender holds it: its value and the hosts its store entry allows
 * (docs/secrets.md, `allowedHosts`; empty: any host the outbound policy allows). Every request
 * that attaches it names it to `guardedFetch`, which checks the destination with
 * `boundCredentialRefusal`, so a URL a platform hands back (Slack's `url_private`) is held to
 * the same hosts as the API root. Pure.
 */
export type BoundCredential = {
  readonly value: string;
  /** The store entry it came from (named in a refusal); absent for a plain config value. */
  readonly secretId?: string;
  readonly allowedHosts: readonly string[];
};

/** A plain value (config text, a test's token): bound to no host. */
export function unboundCredential(value: string): BoundCredential {
  return { value, allowedHosts: [] };
}

/**
 * Why `credential` may not be sent to `destination`, or null when it may: an entry bound to
 * hosts goes only to one of them, and only as `boundKeyTransportRefusal` allows.
 */
export function boundCredentialRefusal(
  credential: BoundCredential,
  destination: URL,
  allowLoopback: boolean,
): string | null {
  if (credential.allowedHosts.length === 0) return null;
  const name = `Secret "${credential.secretId ?? "(inline)"}"`;
  const host = destination.hostname.toLowerCase();
  if (!credential.allowedHosts.includes(host))
    return `${name} is not allowed for host "${host}" (its allowedHosts: ${credential.allowedHosts.join(", ")})`;
  const refusal = boundKeyTransportRefusal(destination, allowLoopback);
  return refusal ? `${name} is bound to its allowedHosts: ${refusal}` : null;
}

/**
 * How a credential bound to hosts (a deployment key's DEPLOYMENT_KEY_HOSTS, a store secret's
 * allowedHosts) may travel: over `https:` to the default port (443) only, since a binding names
 * a host and the key must reach that host's TLS endpoint, not a clear-text or other-port service
 * on it. The one exception is a loopback host while OUTBOUND_ALLOW_LOOPBACK is on (local
 * development and the tests' fakes on 127.0.0.1, any scheme and port).
 */
export function boundKeyTransportRefusal(destination: URL, allowLoopback: boolean): string | null {
  if (allowLoopback && isLoopbackHost(destination.hostname)) return null;
  if (destination.protocol !== "https:")
    return `it is sent only over https, not to ${destination.origin} (${destination.protocol.slice(0, -1)})`;
  if (destination.port !== "") return `it is sent only to the default port 443, not to ${destination.origin}`;
  return null;
}
