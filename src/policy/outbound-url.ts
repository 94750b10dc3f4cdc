import { CHANNEL_OUTBOUND_URL_KEYS } from "../protocol/channels";
import type { RunnerConfig, TenantConfig } from "../protocol/config";
import { runnerFacts } from "../protocol/runner-specs/runner-declarations";

/**
 * Where the service may send a request that tenant config points at (runners, webhook runners,
 * deliveries): public http(s) hosts only. Refused: loopback, private, CGNAT, link-local (cloud
 * metadata at 169.254.169.254), ULA and other non-global addresses in any form URL parsing
 * accepts (decimal, hex and octal IPv4 are normalised by `new URL` before we look; IPv4-mapped,
 * -compatible, NAT64 and 6to4 IPv6 are judged by the IPv4 inside), internal names (`localhost`,
 * `*.localhost`, `.internal`, `.local`, single labels, …) and the service's own origin (a runner
 * pointed at this service would run itself in a loop). Pure: the deployment's switches come in
 * as an {@link OutboundPolicy}. Names are judged as written; what a public name resolves to is
 * the platform's part (`global_fetch_strictly_public`, docs/operations.md).
 */

export type OutboundPolicy = {
  /** Loopback hosts (127/8, ::1, localhost) allowed: local development and tests only. */
  allowLoopback: boolean;
  /** Hosts the operator allows whatever they are (exact hostnames or IP literals, or `*.suffix`). */
  allowedHosts: readonly string[];
  /** Origins of this service (its public origin, the request's own origin): always refused. */
  ownOrigins: readonly string[];
};

export type OutboundVerdict = { ok: true; url: URL } | { ok: false; reason: string };

/** The deployment's text vars behind the policy (wrangler `[vars]`, `.dev.vars`, `--var`). */
export type OutboundEnv = {
  OUTBOUND_ALLOW_LOOPBACK?: string;
  OUTBOUND_ALLOWED_HOSTS?: string;
  PUBLIC_ORIGIN?: string;
};

/** The request header that marks a request this service sent; its own doors refuse it. */
export const HOP_HEADER = "x-openclaw-sessions-hop";

/** Names that never leave a private network (RFC 6761, RFC 6762, RFC 8375 and common habits). */
const INTERNAL_SUFFIXES = ["internal", "local", "localdomain", "home.arpa", "lan", "intranet", "corp", "home"];

/** The policy a deployment's vars describe; `requestOrigin` is the calling request's, when there is one. */
export function outboundPolicy(env: OutboundEnv, requestOrigin?: string): OutboundPolicy {
  const own = [configuredPublicOrigin(env), requestOrigin].filter((o): o is string => typeof o === "string");
  return {
    allowLoopback: env.OUTBOUND_ALLOW_LOOPBACK?.trim().toLowerCase() === "true",
    allowedHosts: (env.OUTBOUND_ALLOWED_HOSTS ?? "")
      .split(",")
      .map((host) => normaliseAllowedHost(host.trim()))
      .filter((host): host is string => host !== null),
    ownOrigins: [...new Set(own)],
  };
}

/** `PUBLIC_ORIGIN` as an origin (`https://host[:port]`), or undefined when unset or not an origin. */
export function configuredPublicOrigin(env: OutboundEnv): string | undefined {
  const value = env.PUBLIC_ORIGIN?.trim();
  if (!value) return undefined;
  try {
    const url = new URL(value);
    return url.protocol === "https:" || url.protocol === "http:" ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the service may send a request to `raw`, and if not, why (a sentence naming the host). */
export function checkOutboundUrl(raw: string, policy: OutboundPolicy): OutboundVerdict {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "not a valid URL" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return { ok: false, reason: `${url.protocol} URLs are not allowed (only http and https)` };
  const host = url.hostname.toLowerCase().replace(/\.+$/, "");
  if (policy.ownOrigins.some((origin) => sameService(url, origin)))
    return { ok: false, reason: `${url.host} is this service's own origin (a request there would loop back into it)` };
  if (hostAllowed(host, policy.allowedHosts)) return { ok: true, url };
  const kind = hostKind(host);
  if (kind === "public") return { ok: true, url };
  if (kind === "loopback" && policy.allowLoopback) return { ok: true, url };
  return { ok: false, reason: `${url.hostname} is ${KIND_TEXT[kind]}; outbound URLs must be public` };
}

/** Whether a URL's hostname names this machine (127/8, ::1, localhost): what OUTBOUND_ALLOW_LOOPBACK opens. */
export function isLoopbackHost(hostname: string): boolean {
  return hostKind(hostname.toLowerCase().replace(/\.+$/, "")) === "loopback";
}

type HostKind = "public" | "loopback" | "private" | "link-local" | "unspecified" | "reserved" | "internal-name";

const KIND_TEXT: Record<Exclude<HostKind, "public">, string> = {
  loopback: "a loopback address",
  private: "a private network address",
  "link-local": "a link-local address",
  unspecified: "an unspecified address",
  reserved: "a reserved (non-global) address",
  "internal-name": "an internal host name",
};

/** What a URL's hostname (lowercase, no trailing dot; IPv6 in brackets) names. */
function hostKind(host: string): HostKind {
  if (host.startsWith("[")) {
    const words = ipv6Words(host.slice(1, -1));
    return words ? ipv6Kind(words) : "reserved";
  }
  const v4 = ipv4Bytes(host);
  if (v4) return ipv4Kind(v4);
  if (host === "localhost" || host.endsWith(".localhost")) return "loopback";
  if (!host.includes(".")) return "internal-name";
  if (INTERNAL_SUFFIXES.some((suffix) => host === suffix || host.endsWith(`.${suffix}`))) return "internal-name";
  return "public";
}

function ipv4Bytes(host: string): number[] | null {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!match) return null;
  const bytes = match.slice(1).map(Number);
  return bytes.every((b) => b <= 255) ? bytes : null;
}

function ipv4Kind([a, b, c]: number[]): HostKind {
  if (a === 127) return "loopback";
  if (a === 0) return "unspecified";
  if (a === 10 || (a === 172 && b! >= 16 && b! <= 31) || (a === 192 && b === 168)) return "private";
  if (a === 100 && b! >= 64 && b! <= 127) return "private"; // CGNAT 100.64/10
  if (a === 169 && b === 254) return "link-local";
  if (
    (a === 192 && b === 0 && (c === 0 || c === 2)) || // IETF protocol assignments, TEST-NET-1
    (a === 198 && (b === 18 || b === 19)) || // benchmarking
    (a === 198 && b === 51 && c === 100) || // TEST-NET-2
    (a === 203 && b === 0 && c === 113) || // TEST-NET-3
    a! >= 224 // multicast, reserved, broadcast
  )
    return "reserved";
  return "public";
}

/** An IPv6 address (no brackets, no zone) as eight 16-bit words, or null when it is not one. */
function ipv6Words(text: string): number[] | null {
  let body = text;
  const tail: number[] = [];
  const dotted = /^(.*:)(\d{1,3}(?:\.\d{1,3}){3})$/.exec(body);
  if (dotted) {
    const v4 = ipv4Bytes(dotted[2]!);
    if (!v4) return null;
    tail.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
    body = dotted[1]!.endsWith("::") ? dotted[1]! : dotted[1]!.slice(0, -1);
  }
  const halves = body.split("::");
  if (halves.length > 2) return null;
  const parse = (part: string) => (part === "" ? [] : part.split(":"));
  const head = parse(halves[0]!);
  const rest = halves.length === 2 ? parse(halves[1]!) : [];
  if (![...head, ...rest].every((word) => /^[0-9a-f]{1,4}$/i.test(word))) return null;
  const missing = 8 - head.length - rest.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  return [
    ...head.map((w) => Number.parseInt(w, 16)),
    ...new Array(halves.length === 2 ? missing : 0).fill(0),
    ...rest.map((w) => Number.parseInt(w, 16)),
    ...tail,
  ];
}

function ipv6Kind(w: number[]): HostKind {
  const embeddedV4 = (hi: number, lo: number) => ipv4Kind([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  const zeroUpTo = (n: number) => w.slice(0, n).every((word) => word === 0);
  if (zeroUpTo(7) && w[7] === 1) return "loopback";
  if (zeroUpTo(8)) return "unspecified";
  if (zeroUpTo(5) && w[5] === 0xffff) return embeddedV4(w[6]!, w[7]!); // IPv4-mapped ::ffff:a.b.c.d
  if (zeroUpTo(6)) return embeddedV4(w[6]!, w[7]!); // IPv4-compatible ::a.b.c.d (deprecated)
  if (w[0] === 0x64 && w[1] === 0xff9b && w.slice(2, 6).every((x) => x === 0)) return embeddedV4(w[6]!, w[7]!); // NAT64
  if (w[0] === 0x2002) return embeddedV4(w[1]!, w[2]!); // 6to4
  const first = w[0]!;
  if ((first & 0xfe00) === 0xfc00) return "private"; // ULA fc00::/7
  if ((first & 0xffc0) === 0xfe80) return "link-local"; // fe80::/10
  if (first === 0x2001 && (w[1] === 0 || w[1] === 0xdb8)) return "reserved"; // Teredo, documentation
  if ((first & 0xe000) !== 0x2000) return "reserved"; // outside global unicast 2000::/3 (site-local, multicast, …)
  return "public";
}

/** Whether `url` reaches the service at `origin`: same host, and same port (80 and 443 count as one). */
function sameService(url: URL, origin: string): boolean {
  let own: URL;
  try {
    own = new URL(origin);
  } catch {
    return false;
  }
  if (url.hostname.toLowerCase().replace(/\.+$/, "") !== own.hostname.toLowerCase().replace(/\.+$/, "")) return false;
  const port = (u: URL) => u.port || (u.protocol === "https:" ? "443" : "80");
  const web = new Set(["80", "443"]);
  return port(url) === port(own) || (web.has(port(url)) && web.has(port(own)));
}

function hostAllowed(host: string, allowed: readonly string[]): boolean {
  return allowed.some((entry) => (entry.startsWith("*.") ? host.endsWith(entry.slice(1)) : host === entry));
}

/** An allowlist entry as URL parsing writes the host (`0x7f.1` → `127.0.0.1`, `::1` → `[::1]`). */
function normaliseAllowedHost(entry: string): string | null {
  if (entry === "") return null;
  if (entry.startsWith("*.")) return `*.${entry.slice(2).toLowerCase().replace(/\.+$/, "")}`;
  const literal = entry.includes(":") && !entry.startsWith("[") ? `[${entry}]` : entry;
  try {
    return new URL(`http://${literal}/`).hostname.toLowerCase().replace(/\.+$/, "");
  } catch {
    return null;
  }
}

/** The first outbound URL of a tenant config the policy refuses: its dotted path and why; null when none. */
export function configOutboundRefusal(
  config: TenantConfig,
  policy: OutboundPolicy,
): { path: string; reason: string } | null {
  const urls: Array<[string, string | undefined]> = [];
  const runnerUrls = (path: string, runner: RunnerConfig | undefined) => {
    for (const { field, url } of runner ? runnerFacts(runner).urls : []) urls.push([`${path}.${field}`, url]);
  };
  runnerUrls("agents.defaults.runner", config.agents?.defaults?.runner);
  for (const [i, agent] of (config.agents?.list ?? []).entries()) runnerUrls(`agents.list.${i}.runner`, agent.runner);
  urls.push(["delivery.webhookUrl", config.delivery?.webhookUrl]);
  const channels = config.channels as Record<string, Record<string, unknown> | undefined> | undefined;
  for (const [channel, key] of CHANNEL_OUTBOUND_URL_KEYS) {
    const url = channels?.[channel]?.[key];
    urls.push([`channels.${channel}.${key}`, typeof url === "string" ? url : undefined]);
  }
  for (const [path, url] of urls) {
    if (url === undefined) continue;
    const verdict = checkOutboundUrl(url, policy);
    if (!verdict.ok) return { path, reason: verdict.reason };
  }
  return null;
}

/** The origin the service calls itself by: `PUBLIC_ORIGIN` when set, else the request's own (its Host header). */
export function serviceOrigin(env: OutboundEnv, requestUrl: string): string {
  return configuredPublicOrigin(env) ?? new URL(requestUrl).origin;
}
