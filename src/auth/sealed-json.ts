import { fromBase64Url, toBase64Url } from "../util/encoding";

/**
 * A JSON value sealed with a deployment secret: AES-256-GCM under a key derived from the secret
 * (SHA-256 of a purpose label and the secret), bound to `context` as additional authenticated
 * data: `<iv>.<ciphertext>`, base64url. Unreadable and unforgeable without the secret; opened
 * only under the same context. Access grants use it (they carry the tenant's config).
 */

const IV_BYTES = 12;
const KEY_LABEL = "openclaw-sessions:sealed-json:v1";

/** Derived keys by secret (deriving costs two WebCrypto calls). */
const keys = new Map<string, Promise<CryptoKey>>();

function sealingKey(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    key = crypto.subtle
      .digest("SHA-256", new TextEncoder().encode(`${KEY_LABEL}\n${secret}`))
      .then((bytes) => crypto.subtle.importKey("raw", bytes, "AES-GCM", false, ["encrypt", "decrypt"]));
    keys.set(secret, key);
  }
  return key;
}

export async function sealJson(secret: string, context: string, value: unknown): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const ciphertext = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: new TextEncoder().encode(context) },
    await sealingKey(secret),
    new TextEncoder().encode(JSON.stringify(value)),
  );
  return `${toBase64Url(iv)}.${toBase64Url(new Uint8Array(ciphertext))}`;
}

/** The bytes of unpadded canonical base64url (the one encoding sealJson writes), else null. */
function canonicalBase64Url(text: string): Uint8Array | null {
  const bytes = fromBase64Url(text);
  return bytes && toBase64Url(bytes) === text ? bytes : null;
}

/** The value `sealJson` sealed with `secret` under `context`, else null (never throws on garbage). */
export async function openSealedJson(secret: string, context: string, text: string): Promise<unknown | null> {
  const parts = text.split(".");
  if (parts.length !== 2) return null;
  const [iv, ciphertext] = parts.map(canonicalBase64Url);
  if (iv?.byteLength !== IV_BYTES || !ciphertext) return null;
  try {
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv, additionalData: new TextEncoder().encode(context) },
      await sealingKey(secret),
      ciphertext,
    );
    return JSON.parse(new TextDecoder().decode(plain)) as unknown;
  } catch {
    return null;
  }
}
