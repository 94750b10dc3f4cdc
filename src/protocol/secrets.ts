import { z } from "zod";

/**
 * The tenant secret store in OpenClaw's shapes (`secrets.store.*`, docs/gateway/secrets/ and
 * the gateway protocol schemas of openclaw 2026.9.6), and its SecretRef `store` form.
 */

/** OpenClaw's env-name grammar for store entry names and SecretRef ids. */
export const SECRET_NAME_PATTERN = /^[A-Z][A-Z0-9_]{0,127}$/;
/** A stored value's UTF-8 size limit (OpenClaw's). */
export const SECRET_VALUE_MAX_BYTES = 65_536;
/** Entries per tenant (this service's bound). */
export const MAX_SECRETS_PER_TENANT = 500;
/** Hosts one secret may be bound to (OpenClaw's). */
export const MAX_ALLOWED_HOSTS = 128;

const nameMessage = `Secret store name must match ${String(SECRET_NAME_PATTERN)}.`;
export const secretNameSchema = z.string().regex(SECRET_NAME_PATTERN, nameMessage);

export const secretKindSchema = z.enum(["secret", "env"]);
export type SecretKind = z.infer<typeof secretKindSchema>;

/** Exact hostnames (lowercased; no wildcards, ports or schemes), as OpenClaw binds secrets to them. */
const allowedHostSchema = z
  .string()
  .min(1)
  .max(253)
  .transform((host) => host.trim().toLowerCase())
  .refine(
    (host) =>
      /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/.test(host),
    {
      message: "must be an exact hostname (no scheme, port, path or wildcard)",
    },
  );

export const secretsStoreListParamsSchema = z.object({});

export const secretsStoreSetParamsSchema = z.object({
  name: secretNameSchema,
  value: z.string(),
  kind: secretKindSchema,
  allowedHosts: z.array(allowedHostSchema).max(MAX_ALLOWED_HOSTS).optional(),
});
export type SecretsStoreSetParams = z.infer<typeof secretsStoreSetParamsSchema>;

export const secretsStoreDeleteParamsSchema = z.object({ name: secretNameSchema });

/** HTTP: PUT /v1/secrets/{name} carries the rest of the set params. */
export const secretPutBodySchema = secretsStoreSetParamsSchema.omit({ name: true }).extend({
  kind: secretKindSchema.default("secret"),
});

/** What every store entry lists, whatever its kind. */
type StoreEntryCommon = {
  name: string;
  scopeKind: "team";
  scopeId: "";
  createdAtMs: number;
  updatedAtMs: number;
  updatedBy?: string;
};

/** A store entry as listed: a `secret` never carries its value; an `env` entry does (OpenClaw's rule). */
export type SecretStoreEntry =
  | (StoreEntryCommon & { kind: "secret"; allowedHosts: string[] })
  | (StoreEntryCommon & { kind: "env"; value: string });

/** What a write changes, as the tenant object stores it. */
export type SecretWrite = SecretsStoreSetParams & { updatedBy?: string };

/** A store value handed to a runner, with the hosts it may be sent to (empty: any). */
export type ResolvedSecret = { value: string; allowedHosts: string[] };

/**
 * OpenClaw's SecretRef, `store` source: `{ source: "store", provider: "default", id: "NAME" }`.
 * Only the built-in store provider exists here (no `secrets.providers`).
 */
export const storeSecretRefSchema = z.strictObject({
  source: z.literal("store", {
    error: 'only { source: "store" } SecretRefs are resolved here (deployment keys use apiKeySecret)',
  }),
  provider: z.literal("default", { error: 'the only store provider here is "default"' }).optional(),
  id: secretNameSchema,
});
export type StoreSecretRef = z.infer<typeof storeSecretRefSchema>;

/**
 * A deployment secret a runner may name with `apiKeySecret` (never the key itself). Only
 * MODEL_KEY_* names are readable, and only once the operator granted the name to the tenant.
 */
export const deploymentKeyNameSchema = z
  .string()
  .regex(/^MODEL_KEY_[A-Z0-9_]{1,64}$/, "must name a worker secret starting with MODEL_KEY_");

/** A deployment key a tenant may use: granted by the admin API, or to the default tenant by DEV_DEPLOYMENT_KEY_GRANTS. */
export type DeploymentKeyGrant = { name: string; source: "admin" | "dev"; grantedAt?: number };
/** An operator's change to a tenant's grants (admin API). */
export type DeploymentKeyGrantChange = { grant: string } | { revoke: string };

/** How a reference is named in errors and logs (never the value). */
export function describeSecretRef(ref: StoreSecretRef): string {
  return `store:${ref.provider ?? "default"}:${ref.id}`;
}

export const secretEntriesSchema = z.object({ ok: z.literal(true), entries: z.array(z.looseObject({})) });
export const secretMutationSchema = z.object({
  ok: z.literal(true),
  reloaded: z.boolean(),
});
