/**
 * Google's signing certificates for Chat's webhook tokens: a `{kid: PEM}` map fetched from
 * Google (or a replaceable URL) and kept as long as its `Cache-Control: max-age` says, 10 min
 * when it says nothing (the gateway's own cache time). The fetch is injected so the caller puts
 * it under the outbound guard (policy/guarded-fetch.ts).
 */

export const GOOGLE_CHAT_CERTS_URL =
  "https://www.googleapis.com/service_accounts/v1/metadata/x509/chat@system.gserviceaccount.com";
/** Google's OIDC certificates as a `{kid: PEM}` map, for `audienceType` "app-url" ID tokens. */
export const GOOGLE_OIDC_CERTS_URL = "https://www.googleapis.com/oauth2/v1/certs";
export const DEFAULT_CERTS_MAX_AGE_MS = 10 * 60_000;
/** A certificate map larger than this is refused (Google's holds two or three keys). */
const MAX_CERT_MAP_BYTES = 64 * 1024;

export type CertificateFetch = (url: string) => Promise<Response>;

/** The max-age of a `Cache-Control` header in milliseconds, or null when it has none. */
export function maxAgeMs(cacheControl: string | null): number | null {
  const match = /(?:^|[,\s])max-age=(\d+)/i.exec(cacheControl ?? "");
  return match?.[1] ? Number(match[1]) * 1000 : null;
}

export class CertificateCache {
  private entry: { url: string; certs: Record<string, string>; expiresAtMs: number } | null = null;
  private pending: { url: string; certs: Promise<Record<string, string>> } | null = null;

  constructor(private readonly fetchCerts: CertificateFetch) {}

  /** The map for `url`, fetched at most once per max-age (concurrent callers share one fetch). */
  async get(url: string, nowMs: number): Promise<Record<string, string>> {
    if (this.entry && this.entry.url === url && nowMs < this.entry.expiresAtMs) return this.entry.certs;
    if (this.pending?.url !== url) {
      const certs = this.load(url, nowMs).finally(() => {
        if (this.pending?.certs === certs) this.pending = null;
      });
      this.pending = { url, certs };
    }
    return this.pending.certs;
  }

  private async load(url: string, nowMs: number): Promise<Record<string, string>> {
    const response = await this.fetchCerts(url);
    const text = await response.text();
    if (!response.ok) throw new Error(`certificate fetch answered ${response.status}`);
    if (text.length > MAX_CERT_MAP_BYTES) throw new Error("certificate map too large");
    const parsed: unknown = JSON.parse(text);
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed))
      throw new Error("certificate map is not an object");
    const certs = Object.fromEntries(
      Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
    );
    const ttl = maxAgeMs(response.headers.get("cache-control")) ?? DEFAULT_CERTS_MAX_AGE_MS;
    this.entry = { url, certs, expiresAtMs: nowMs + ttl };
    return certs;
  }
}
