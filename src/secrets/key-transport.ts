import { isLoopbackHost } from "../policy/outbound-url";

/**
 * How a credential bound to hosts (a deployment key's DEPLOYMENT_KEY_HOSTS, a store secret's
 * allowedHosts) may travel: over `https:` to the default port (443) only, since a binding names
 * a host and the key must reach that host's TLS endpoint, not a clear-text or other-port service
 * on it. The one exception is a loopback host while OUTBOUND_ALLOW_LOOPBACK is on (local
 * development and the tests' fakes on 127.0.0.1, any scheme and port). Pure.
 */

/** The URL's origin, with why a bound credential may not go there, or null when it may. */
export function boundKeyTransportRefusal(destination: URL, allowLoopback: boolean): string | null {
  if (allowLoopback && isLoopbackHost(destination.hostname)) return null;
  if (destination.protocol !== "https:")
    return `it is sent only over https, not to ${destination.origin} (${destination.protocol.slice(0, -1)})`;
  if (destination.port !== "") return `it is sent only to the default port 443, not to ${destination.origin}`;
  return null;
}
