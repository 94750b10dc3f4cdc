import { type BoundCredential, boundCredentialRefusal } from "./bound-credential";
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
 * at its first hop. `carries` names the credentials the request attaches (in its URL or
 * headers): each is held to its store entry's `allowedHosts` here, the one place every request
 * that attaches one passes, so a URL a platform hands back cannot take it elsewhere.
 */
export function guardedFetch(
  url: string,
  init: RequestInit,
  policy: OutboundPolicy,
  carries: readonly BoundCredential[] = [],
): Promise<Response> {
  const verdict = checkOutboundUrl(url, policy);
  if (!verdict.ok) return Promise.reject(new OutboundRefusedError(verdict.reason));
  for (const credential of carries) {
    const refusal = boundCredentialRefusal(credential, verdict.url, policy.allowLoopback);
    if (refusal) return Promise.reject(new OutboundRefusedError(refusal));
  }
  const headers = new Headers(init.headers);
  headers.set(HOP_HEADER, "1");
  return fetch(verdict.url, { ...init, headers, redirect: "manual" });
}
