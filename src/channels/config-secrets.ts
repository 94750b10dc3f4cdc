import { CHANNEL_SECRET_NAMES } from "../protocol/channels";
import type { TenantConfig } from "../protocol/config";
import type { SecretWrite } from "../protocol/secrets";

/**
 * A channel token written as a plain value is moved into the tenant's secret store and the
 * config keeps a SecretRef to it, so no read path (config.get, GET /v1/config, export) can
 * return it: the stored config never holds it. The store entry is named per key
 * (CHANNEL_SECRET_NAMES: `TELEGRAM_BOT_TOKEN`, `TELEGRAM_WEBHOOK_SECRET`).
 */
export async function sealChannelSecrets(
  config: TenantConfig,
  storeSecret: (write: SecretWrite) => Promise<string | null>,
): Promise<TenantConfig> {
  const telegram = config.channels?.telegram;
  if (!telegram) return config;
  const sealed: Record<string, unknown> = { ...telegram };
  for (const key of ["botToken", "webhookSecret"] as const) {
    const value = telegram[key];
    if (typeof value !== "string") continue;
    const name = CHANNEL_SECRET_NAMES[`telegram.${key}`]!;
    const refused = await storeSecret({ name, value, kind: "secret", updatedBy: "config" });
    if (refused) throw new Error(`channels.telegram.${key}: ${refused}`);
    sealed[key] = { source: "store", provider: "default", id: name };
  }
  return { ...config, channels: { ...config.channels, telegram: sealed as typeof telegram } };
}
