/**
 * RS256 JSON Web Tokens with WebCrypto only: verifying a token against a PEM X.509 certificate
 * (Google Chat's and Microsoft Teams' signed webhooks) and signing one with a PKCS#8 private key
 * (a service account's OAuth assertion). Pure of any platform: callers fetch and cache the keys.
 */
import { fromBase64Url, toBase64Url } from "./encoding";

const RS256 = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" } as const;

/** Why a token was refused; logged by the caller, never shown to the sender. */
export type JwtRefusal =
  | "malformed"
  | "unsupported algorithm"
  | "unknown key"
  | "invalid signature"
  | "wrong audience"
  | "wrong issuer"
  | "expired"
  | "not yet valid";

export type JwtClaims = Record<string, unknown>;

export type JwtVerification = { ok: true; claims: JwtClaims; kid?: string } | { ok: false; reason: JwtRefusal };

/** The decoded parts of a compact JWT; null when it is not one. */
export function decodeJwt(
  token: string,
): { header: JwtClaims; claims: JwtClaims; signedPart: string; signature: Uint8Array } | null {
  const parts = token.split(".");
  if (parts.length !== 3) return null;
  const [headerPart, claimsPart, signaturePart] = parts as [string, string, string];
  const header = parseJsonObject(fromBase64Url(headerPart));
  const claims = parseJsonObject(fromBase64Url(claimsPart));
  const signature = fromBase64Url(signaturePart);
  if (!header || !claims || !signature || signature.length === 0) return null;
  return { header, claims, signedPart: `${headerPart}.${claimsPart}`, signature };
}

function parseJsonObject(bytes: Uint8Array | null): JwtClaims | null {
  if (!bytes) return null;
  try {
    const value: unknown = JSON.parse(new TextDecoder().decode(bytes));
    return value && typeof value === "object" && !Array.isArray(value) ? (value as JwtClaims) : null;
  } catch {
    return null;
  }
}

/** What a verified token must say; `nowSeconds` is injectable so tests own the clock. */
export interface JwtExpectations {
  audiences: readonly string[];
  issuers: readonly string[];
  nowSeconds?: number;
  /** Clock skew tolerated on `exp`/`nbf`/`iat`, in seconds. */
  skewSeconds?: number;
}

/**
 * Verifies an RS256 token: the header's `kid` picks the certificate from `certsByKid` (a
 * `{kid: PEM}` map, as Google publishes it), then signature, `aud`, `iss`, `exp`/`nbf`.
 */
export async function verifyRs256Jwt(
  token: string,
  certsByKid: Readonly<Record<string, string>>,
  expect: JwtExpectations,
): Promise<JwtVerification> {
  return verifyRs256JwtWith(
    token,
    async (kid) => {
      const pem = kid === undefined ? undefined : certsByKid[kid];
      return pem === undefined ? null : importCertificateKey(pem);
    },
    expect,
  );
}

/**
 * Verifies an RS256 token whose key `keyFor` finds by the header's `kid` (null: no such key;
 * a key set published as JWKS, as the Bot Framework's, or a certificate map). `keyFor` may
 * throw (keys unreachable): the caller tells that apart from a refusal.
 */
export async function verifyRs256JwtWith(
  token: string,
  keyFor: (kid: string | undefined) => Promise<CryptoKey | null>,
  expect: JwtExpectations,
): Promise<JwtVerification> {
  const decoded = decodeJwt(token);
  if (!decoded) return { ok: false, reason: "malformed" };
  const { header, claims } = decoded;
  if (header.alg !== "RS256") return { ok: false, reason: "unsupported algorithm" };
  const kid = typeof header.kid === "string" ? header.kid : undefined;
  const key = await keyFor(kid);
  if (!key) return { ok: false, reason: "unknown key" };
  const signedBytes = new TextEncoder().encode(decoded.signedPart);
  if (!(await crypto.subtle.verify(RS256, key, decoded.signature, signedBytes))) {
    return { ok: false, reason: "invalid signature" };
  }
  const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!audiences.some((aud) => typeof aud === "string" && expect.audiences.includes(aud))) {
    return { ok: false, reason: "wrong audience" };
  }
  if (typeof claims.iss !== "string" || !expect.issuers.includes(claims.iss)) {
    return { ok: false, reason: "wrong issuer" };
  }
  const now = expect.nowSeconds ?? Math.floor(Date.now() / 1000);
  const skew = expect.skewSeconds ?? 0;
  if (typeof claims.exp !== "number" || claims.exp + skew < now) return { ok: false, reason: "expired" };
  if (typeof claims.nbf === "number" && claims.nbf - skew > now) return { ok: false, reason: "not yet valid" };
  if (typeof claims.iat === "number" && claims.iat - skew > now) return { ok: false, reason: "not yet valid" };
  return kid === undefined ? { ok: true, claims } : { ok: true, claims, kid };
}

/** The public key of an RSA JWK (a JWKS entry), or null when WebCrypto cannot use it. */
export async function importRsaJwk(jwk: JsonWebKey): Promise<CryptoKey | null> {
  if (jwk.kty !== "RSA" || !jwk.n || !jwk.e) return null;
  try {
    return await crypto.subtle.importKey("jwk", { kty: "RSA", n: jwk.n, e: jwk.e }, RS256, false, ["verify"]);
  } catch {
    return null;
  }
}

/** Signs `claims` as an RS256 JWT with a PKCS#8 PEM private key (`-----BEGIN PRIVATE KEY-----`). */
export async function signRs256Jwt(claims: JwtClaims, privateKeyPem: string, kid?: string): Promise<string> {
  const der = pemBody(privateKeyPem, "PRIVATE KEY");
  if (!der) throw new Error("the private key is not a PKCS#8 PEM (BEGIN PRIVATE KEY)");
  const key = await crypto.subtle.importKey("pkcs8", der, RS256, false, ["sign"]);
  const header = kid === undefined ? { alg: "RS256", typ: "JWT" } : { alg: "RS256", typ: "JWT", kid };
  const encode = (value: unknown) => toBase64Url(new TextEncoder().encode(JSON.stringify(value)));
  const signedPart = `${encode(header)}.${encode(claims)}`;
  const signature = await crypto.subtle.sign(RS256, key, new TextEncoder().encode(signedPart));
  return `${signedPart}.${toBase64Url(new Uint8Array(signature))}`;
}

/** The public key of a PEM X.509 certificate, or null when it is not one WebCrypto can use. */
export async function importCertificateKey(certificatePem: string): Promise<CryptoKey | null> {
  const der = pemBody(certificatePem, "CERTIFICATE");
  const spki = der ? subjectPublicKeyInfo(der) : null;
  if (!spki) return null;
  try {
    return await crypto.subtle.importKey("spki", spki, RS256, false, ["verify"]);
  } catch {
    return null;
  }
}

function pemBody(pem: string, label: string): Uint8Array | null {
  const match = new RegExp(`-----BEGIN ${label}-----([\\s\\S]*?)-----END ${label}-----`).exec(pem);
  if (!match?.[1]) return null;
  try {
    return Uint8Array.from(atob(match[1].replace(/\s+/g, "")), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

/** A DER element: its tag byte is at `at`, its content is `[start, end)`. */
type Der = { tag: number; at: number; start: number; end: number; next: number };

/** One DER tag-length-value at `at`; null when it runs past `limit`. */
function readDer(bytes: Uint8Array, at: number, limit: number): Der | null {
  if (at + 2 > limit) return null;
  const tag = bytes[at] as number;
  let length = bytes[at + 1] as number;
  let start = at + 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count < 1 || count > 4 || start + count > limit) return null;
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + (bytes[start + i] as number);
    start += count;
  }
  const end = start + length;
  return end > limit ? null : { tag, at, start, end, next: end };
}

/**
 * The SubjectPublicKeyInfo of a DER certificate: Certificate ::= SEQUENCE { tbsCertificate
 * SEQUENCE { [0] version?, serialNumber, signature, issuer, validity, subject, spki, … } … }.
 */
function subjectPublicKeyInfo(der: Uint8Array): Uint8Array | null {
  const certificate = readDer(der, 0, der.length);
  if (certificate?.tag !== 0x30) return null;
  const tbs = readDer(der, certificate.start, certificate.end);
  if (tbs?.tag !== 0x30) return null;
  let field = readDer(der, tbs.start, tbs.end);
  if (field?.tag === 0xa0) field = readDer(der, field.next, tbs.end);
  // serialNumber, signature, issuer, validity, subject: five fields before the key.
  for (let skipped = 0; skipped < 5 && field; skipped++) field = readDer(der, field.next, tbs.end);
  if (field?.tag !== 0x30) return null;
  return der.slice(field.at, field.end);
}
