import { CHANNEL_SECRET_KEYS, CHANNEL_SECRET_NAMES } from "../protocol/channels";
import type { TenantConfig } from "../protocol/config";
import type { SecretWrite } from "../protocol/secrets";

/**
 * A channel token written as a plain value is moved into the tenant's secret store and the
 * config keeps a SecretRef to it, so no read path (config.get, GET /v1/config, export) can
 * return it: the stored config never holds it. The store entry is named per key
 * (CHANNEL_SECRET_NAMES: `TELEGRAM_BOT_TOKEN`, `SLACK_SIGNING_SECRET`, …).
 */
export async function sealChannelSecrets(
  config: TenantConfig,
  storeSecret: (write: SecretWrite) => Promise<string | null>,
): Promise<TenantConfig> {
  let channels = config.channels;
  for (const channel of Object.keys(CHANNEL_SECRET_KEYS) as Array<keyof typeof CHANNEL_SECRET_KEYS>) {
    const block = channels?.[channel] as Record<string, unknown> | undefined;
    if (!block) continue;
    const sealed: Record<string, unknown> = { ...block };
    for (const key of CHANNEL_SECRET_KEYS[channel]) {
      const value = block[key];
      if (typeof value !== "string") continue;
      const name = CHANNEL_SECRET_NAMES[`${channel}.${key}`]!;
      const refused = await storeSecret({ name, value, kind: "secret", updatedBy: "config" });
      if (refused) throw new Error(`channels.${channel}.${key}: ${refused}`);
      sealed[key] = { source: "store", provider: "default", id: name };
    }
    channels = { ...channels, [channel]: sealed };
  }
  return channels === config.channels ? config : { ...config, channels };
}
