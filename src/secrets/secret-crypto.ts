import { fromBase64Url, toBase64Url } from "../util/encoding";

/**
 * Encryption at rest of tenant secrets: AES-256-GCM through WebCrypto, with the deployment's
 * keys from worker secrets. `SECRET_STORE_KEY` is the current key (`<keyId>:<base64 of 32
 * bytes>`); `SECRET_STORE_PREVIOUS_KEYS` lists retired keys the same way, comma-separated, so
 * values sealed before a rotation still open (and are sealed again with the current key when
 * next written or read). Each ciphertext carries its key id, and is bound (as additional
 * authenticated data) to its tenant and name: a row copied to another tenant or name does not open.
 */

export type SealedValue = { keyId: string; iv: string; ciphertext: string };

type Keyring = { current: { id: string; key: CryptoKey }; byId: Map<string, CryptoKey> };

export type SecretKeyEnv = { SECRET_STORE_KEY?: string; SECRET_STORE_PREVIOUS_KEYS?: string };

/** The store cannot work (no key configured, a malformed key): said to the operator, never with key material. */
export class SecretKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SecretKeyError";
  }
}

const KEY_ID_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;
const KEY_BYTES = 32;
const IV_BYTES = 12;
const AAD_PREFIX = "openclaw-secret-store:v1";

/** Keyrings by the env strings they were built from (importing a key costs a WebCrypto call). */
const keyrings = new Map<string, Promise<Keyring>>();

export function keyring(env: SecretKeyEnv): Promise<Keyring> {
  const current = env.SECRET_STORE_KEY?.trim();
  if (!current) {
    return Promise.reject(
      new SecretKeyError("the secret store is not configured on this deployment (SECRET_STORE_KEY is not set)"),
    );
  }
  const previous = env.SECRET_STORE_PREVIOUS_KEYS?.trim() ?? "";
  const cacheKey = `${current}\n${previous}`;
  let ring = keyrings.get(cacheKey);
  if (!ring) {
    ring = buildKeyring(current, previous);
    // A malformed key is not cached: the next call says what is wrong again.
    ring.catch(() => keyrings.delete(cacheKey));
    keyrings.set(cacheKey, ring);
  }
  return ring;
}

async function buildKeyring(current: string, previous: string): Promise<Keyring> {
  const main = await importKey(current, "SECRET_STORE_KEY");
  const byId = new Map<string, CryptoKey>([[main.id, main.key]]);
  for (const entry of previous.split(",").map((part) => part.trim())) {
    if (entry === "") continue;
    const old = await importKey(entry, "SECRET_STORE_PREVIOUS_KEYS");
    if (!byId.has(old.id)) byId.set(old.id, old.key);
  }
  return { current: main, byId };
}

async function importKey(spec: string, variable: string): Promise<{ id: string; key: CryptoKey }> {
  const colon = spec.indexOf(":");
  const id = colon > 0 ? spec.slice(0, colon) : "";
  // Standard base64 (`openssl rand -base64 32`) or base64url.
  const bytes =
    colon > 0
      ? fromBase64Url(
          spec
            .slice(colon + 1)
            .replace(/\+/g, "-")
            .replace(/\//g, "_"),
        )
      : null;
  if (!KEY_ID_PATTERN.test(id) || bytes?.byteLength !== KEY_BYTES) {
    throw new SecretKeyError(
      `${variable} must be <keyId>:<base64 of ${KEY_BYTES} random bytes> (key id: letters, digits, _ or -, up to 32)`,
    );
  }
  const key = await crypto.subtle.importKey("raw", bytes, "AES-GCM", false, ["encrypt", "decrypt"]);
  return { id, key };
}

function aad(tenantId: string, name: string): Uint8Array {
  return new TextEncoder().encode(`${AAD_PREFIX}\n${tenantId}\n${name}`);
}

/** Seals a value with the current key. */
export async function sealValue(ring: Keyring, tenantId: string, name: string, value: string): Promise<SealedValue> {
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const ciphertext = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: aad(tenantId, name) },
    ring.current.key,
    new TextEncoder().encode(value),
  );
  return { keyId: ring.current.id, iv: toBase64Url(iv), ciphertext: toBase64Url(new Uint8Array(ciphertext)) };
}

/** Opens a sealed value; a key this deployment no longer has, or a tampered row, is a SecretKeyError. */
export async function openValue(ring: Keyring, tenantId: string, name: string, sealed: SealedValue): Promise<string> {
  const key = ring.byId.get(sealed.keyId);
  if (!key) {
    throw new SecretKeyError(
      `secret "${name}" was encrypted with key "${sealed.keyId}", which this deployment no longer has (add it to SECRET_STORE_PREVIOUS_KEYS)`,
    );
  }
  try {
    const iv = fromBase64Url(sealed.iv);
    const ciphertext = fromBase64Url(sealed.ciphertext);
    if (!iv || !ciphertext) throw new Error("not base64url");
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv, additionalData: aad(tenantId, name) },
      key,
      ciphertext,
    );
    return new TextDecoder().decode(plain);
  } catch {
    throw new SecretKeyError(`secret "${name}" could not be decrypted (its stored ciphertext does not verify)`);
  }
}

/** Whether a sealed value should be sealed again (written under a retired key). */
export function isStale(ring: Keyring, sealed: SealedValue): boolean {
  return sealed.keyId !== ring.current.id;
}
