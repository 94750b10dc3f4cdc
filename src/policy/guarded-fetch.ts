import { checkOutboundUrl, HOP_HEADER, type OutboundPolicy } from "./outbound-url";

/** A request to a URL the outbound policy refuses; its message says which host and why. */
export class OutboundRefusedError extends Error {
  constructor(reason: string) {
    super(`outbound request refused: ${reason}`);
    this.name = "OutboundRefusedError";
  }
}

/**
 * `fetch` for every URL that tenant config controls (runners, webhook runners, deliveries):
 * the URL is checked against the policy again at send time (config may predate a stricter
 * deployment), redirects are not followed (a public host could bounce the request to a
 * private one; a 3xx is answered to the caller as it is), and the request carries the hop
 * header this service's own doors refuse, so a loop through another name of the service ends
 * at its first hop.
 */
export function guardedFetch(url: string, init: RequestInit, policy: OutboundPolicy): Promise<Response> {
  const verdict = checkOutboundUrl(url, policy);
  if (!verdict.ok) return Promise.reject(new OutboundRefusedError(verdict.reason));
  const headers = new Headers(init.headers);
  headers.set(HOP_HEADER, "1");
  return fetch(verdict.url, { ...init, headers, redirect: "manual" });
}
