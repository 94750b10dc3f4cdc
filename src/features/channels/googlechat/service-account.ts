import { signRs256Jwt } from "../../../util/jwt-rs256";

/**
 * The app's access token for the Chat API: a JWT-bearer assertion signed with the service
 * account's key (SPEC channels-2 §4.2), exchanged at the token endpoint (replaceable) and kept
 * until shortly before it expires. The fetch is injected so the caller puts it under the
 * outbound guard (policy/guarded-fetch.ts).
 */

export const GOOGLE_TOKEN_URL = "https://oauth2.googleapis.com/token";
export const CHAT_BOT_SCOPE = "https://www.googleapis.com/auth/chat.bot";
/** Lifetime asked for in the assertion, in seconds (Google's maximum). */
const ASSERTION_LIFETIME_SECONDS = 3600;
/** A token is renewed this long before its `expires_in` ends, in milliseconds. */
export const TOKEN_RENEW_EARLY_MS = 5 * 60_000;

/** The fields of a service-account key file this service uses. */
export type ServiceAccountKey = { client_email: string; private_key: string; private_key_id?: string };

export type TokenFetch = (url: string, init: RequestInit) => Promise<Response>;

export class ServiceAccountTokens {
  private cached: { token: string; renewAtMs: number } | null = null;
  private pending: Promise<string> | null = null;

  constructor(
    private readonly key: ServiceAccountKey,
    private readonly tokenUrl: string,
    private readonly fetchToken: TokenFetch,
  ) {}

  /** A valid access token; concurrent callers share one exchange. */
  async token(nowMs: number): Promise<string> {
    if (this.cached && nowMs < this.cached.renewAtMs) return this.cached.token;
    if (!this.pending) {
      this.pending = this.exchange(nowMs).finally(() => {
        this.pending = null;
      });
    }
    return this.pending;
  }

  /** Forgets the token (after a 401 from the Chat API). */
  invalidate(): void {
    this.cached = null;
  }

  private async exchange(nowMs: number): Promise<string> {
    const iat = Math.floor(nowMs / 1000);
    const assertion = await signRs256Jwt(
      {
        iss: this.key.client_email,
        scope: CHAT_BOT_SCOPE,
        aud: this.tokenUrl,
        iat,
        exp: iat + ASSERTION_LIFETIME_SECONDS,
      },
      this.key.private_key,
      this.key.private_key_id,
    );
    const response = await this.fetchToken(this.tokenUrl, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion }).toString(),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`token endpoint answered ${response.status}`);
    let parsed: { access_token?: unknown; expires_in?: unknown };
    try {
      parsed = JSON.parse(text) as typeof parsed;
    } catch {
      throw new Error("token endpoint answered no JSON");
    }
    if (typeof parsed.access_token !== "string") throw new Error("token endpoint answered no access_token");
    const lifetimeMs = (typeof parsed.expires_in === "number" ? parsed.expires_in : ASSERTION_LIFETIME_SECONDS) * 1000;
    this.cached = { token: parsed.access_token, renewAtMs: nowMs + Math.max(0, lifetimeMs - TOKEN_RENEW_EARLY_MS) };
    return parsed.access_token;
  }
}
