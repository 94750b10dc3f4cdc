import { fromBase64Url, toBase64Url } from "../util/encoding";

/**
 * A JSON value sealed with a deployment secret: AES-256-GCM under a key derived for `context`
 * (HKDF-SHA256 of the secret, a purpose label as salt and the context as info), the context also
 * bound as additional authenticated data: `<iv>.<ciphertext>`, base64url. Unreadable and
 * unforgeable without the secret; opened only under the same context. A key per context keeps
 * each key's random 96-bit IVs far below GCM's 2^32 messages (one tenant's token is sealed at
 * most once per grant lifetime and data center), where one deployment key could pass it.
 * Access grants use it (they carry the tenant's config).
 */

const IV_BYTES = 12;
const KEY_LABEL = "openclaw-sessions:sealed-json:v2";

/** The secret as HKDF input, by secret (one per deployment). */
const baseKeys = new Map<string, Promise<CryptoKey>>();

async function sealingKey(secret: string, context: string): Promise<CryptoKey> {
  let base = baseKeys.get(secret);
  if (!base) {
    base = crypto.subtle.importKey("raw", new TextEncoder().encode(secret), "HKDF", false, ["deriveKey"]);
    baseKeys.set(secret, base);
  }
  const encode = (text: string) => new TextEncoder().encode(text);
  return crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: encode(KEY_LABEL), info: encode(context) },
    await base,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
}

export async function sealJson(secret: string, context: string, value: unknown): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const ciphertext = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: new TextEncoder().encode(context) },
    await sealingKey(secret, context),
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
      await sealingKey(secret, context),
      ciphertext,
    );
    return JSON.parse(new TextDecoder().decode(plain)) as unknown;
  } catch {
    return null;
  }
}
