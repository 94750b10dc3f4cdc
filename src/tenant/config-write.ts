import type { ConfigWrite } from "../contracts/tenant-api";
import { configHash } from "../model/config-hash";
import type { TenantConfig } from "../protocol/config";
import type { TenantStore } from "./tenant-store";

/**
 * Saves `next` when the stored config is still the one `baseHash` names (optimistic
 * concurrency; no base hash: replaced whatever it is). The stored config is read again after
 * hashing, in the same turn as the write, so a change that landed meanwhile is not overwritten.
 * `written` hears the new hash (the gateway tells its readers).
 */
export async function writeConfig(
  store: TenantStore,
  next: TenantConfig,
  baseHash: string | undefined,
  now: number,
  written: (hash: string) => void,
): Promise<ConfigWrite> {
  if (baseHash !== undefined) {
    const loaded = store.config();
    const current = await configHash(loaded);
    if (current !== baseHash || store.config() !== loaded) return { ok: false, reason: "changed" };
  }
  store.saveConfig(next, now);
  const hash = await configHash(next);
  written(hash);
  return { ok: true, config: next, hash };
}
