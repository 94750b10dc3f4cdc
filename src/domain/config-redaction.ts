import type { TenantConfig } from "../protocol/config";

/**
 * Plain secret values a tenant may write into its config (today `hooks.token`) never leave
 * through a read: every read path shows OpenClaw's sentinel instead, and a write that sends
 * the sentinel back keeps the stored value (as OpenClaw's `config.set` restores redacted
 * fields). A store SecretRef is not a secret and is shown as written.
 */

/** OpenClaw's placeholder for a redacted config value. */
export const REDACTED_SENTINEL = "__OPENCLAW_REDACTED__";

/** The config as read paths show it: plain secret values replaced by the sentinel. */
export function redactConfig(config: Readonly<TenantConfig>): TenantConfig {
  const token = config.hooks?.token;
  if (typeof token !== "string") return config;
  return { ...config, hooks: { ...config.hooks, token: REDACTED_SENTINEL } };
}

/** A config about to be written: a sentinel sent back becomes the stored value again. */
export function restoreRedacted(next: TenantConfig, current: Readonly<TenantConfig>): TenantConfig {
  if (next.hooks?.token !== REDACTED_SENTINEL) return next;
  const stored = current.hooks?.token;
  const hooks = { ...next.hooks };
  if (stored === undefined) delete hooks.token;
  else hooks.token = stored;
  return { ...next, hooks };
}
