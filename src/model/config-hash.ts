import type { TenantConfig } from "../protocol/config";
import { sha256Hex } from "../util/encoding";
import { stableJson } from "../util/stable-json";

/** A tenant config's revision as clients see it (`config.get`'s `hash`): sha256 of its sorted JSON. */
export function configHash(config: Readonly<TenantConfig>): Promise<string> {
  return sha256Hex(stableJson(config));
}
