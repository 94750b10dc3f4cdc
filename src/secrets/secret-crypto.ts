import { logWarning } from "../observability/log";
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

/**
 * What a tenant is told when the deployment's secret storage cannot work: no variable name, no
 * deployment detail (those go to the operator: the log line below and GET /v1/admin/health).
 */
export const SECRET_STORAGE_UNAVAILABLE =
  "secret storage is not configured on this deployment; the operator has been told";

/**
 * The store cannot work (no key configured, a malformed key). Its message is the tenant's
 * (SECRET_STORAGE_UNAVAILABLE, also across an RPC, which keeps only the message); `variable` and
 * `problem` are the operator's, never with key material.
 */
export class SecretKeyError extends Error {
  constructor(
    readonly variable: string,
    readonly problem: string,
  ) {
    super(SECRET_STORAGE_UNAVAILABLE);
    this.name = "SecretKeyError";
  }
}

/** Problems already logged by this isolate: the operator's log gets each once, not per request. */
const loggedProblems = new Set<string>();

function toldOperator(error: SecretKeyError): SecretKeyError {
  const said = `${error.variable}: ${error.problem}`;
  if (!loggedProblems.has(said)) {
    loggedProblems.add(said);
    // No tenant field: a deployment's misconfiguration is the operator's line, not a tenant's log.
    logWarning("deployment.misconfigured", { variable: error.variable, error: error.problem });
  }
  return error;
}

const KEY_ID_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;
const KEY_BYTES = 32;
const IV_BYTES = 12;
const AAD_PREFIX = "openclaw-secret-store:v1";

/** Keyrings by the env strings they were built from (importing a key costs a WebCrypto call). */
const keyrings = new Map<string, Promise<Keyring>>();

export function keyring(env: SecretKeyEnv): Promise<Keyring> {
  const current = env.SECRET_STORE_KEY?.trim();
  if (!current) return Promise.reject(toldOperator(new SecretKeyError("SECRET_STORE_KEY", "not set")));
  const previous = env.SECRET_STORE_PREVIOUS_KEYS?.trim() ?? "";
  const cacheKey = `${current}\n${previous}`;
  let ring = keyrings.get(cacheKey);
  if (!ring) {
    ring = buildKeyring(current, previous).catch((error: unknown) => {
      throw error instanceof SecretKeyError ? toldOperator(error) : error;
    });
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
      variable,
      `must be <keyId>:<base64 of ${KEY_BYTES} random bytes> (key id: letters, digits, _ or -, up to 32)`,
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

/** Opens a sealed value; a key this deployment no longer has is a SecretKeyError, a tampered row an Error. */
export async function openValue(ring: Keyring, tenantId: string, name: string, sealed: SealedValue): Promise<string> {
  const key = ring.byId.get(sealed.keyId);
  if (!key) {
    throw toldOperator(
      new SecretKeyError(
        "SECRET_STORE_PREVIOUS_KEYS",
        `lacks key "${sealed.keyId}", which sealed stored values (add it back; secret "${name}" was one)`,
      ),
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
    throw new Error(`secret "${name}" could not be decrypted (its stored ciphertext does not verify)`);
  }
}

/** Whether a sealed value should be sealed again (written under a retired key). */
export function isStale(ring: Keyring, sealed: SealedValue): boolean {
  return sealed.keyId !== ring.current.id;
}
