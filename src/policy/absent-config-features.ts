import { ABSENT_FEATURE_REFUSALS, type TenantConfig } from "../protocol/config";

/**
 * OpenClaw config switches of features this service does not have (or has one way only), with
 * the value that is true here. The Control UI's Labs, Privacy & Security, Skill Workshop and
 * Updates pages read them from `config.get` and show OpenClaw's defaults when they are absent
 * (Tool Search and Code Mode on, browser enabled, exec on an allowlist, gateway auth "unknown",
 * self-learning on, update checks on); so `config.get` answers them, writes may send them back (the schema accepts
 * only these values) and they are never stored: the stored config, and so its hash, is the same
 * whether or not a write carried them.
 */
type AbsentFeature = { path: readonly string[]; value: Record<string, unknown>; refusal: string };

export const ABSENT_CONFIG_FEATURES: readonly AbsentFeature[] = [
  { path: ["tools", "toolSearch"], value: { enabled: false }, refusal: ABSENT_FEATURE_REFUSALS.toolSearch },
  { path: ["tools", "codeMode"], value: { enabled: false }, refusal: ABSENT_FEATURE_REFUSALS.codeMode },
  { path: ["tools", "exec"], value: { security: "deny" }, refusal: ABSENT_FEATURE_REFUSALS.exec },
  { path: ["browser"], value: { enabled: false }, refusal: ABSENT_FEATURE_REFUSALS.browser },
  // Not absent but fixed here; shown so the UI does not read OpenClaw's defaults (self-learning
  // on, "Gateway auth: unknown", update checks on).
  {
    path: ["skills", "workshop", "autonomous"],
    value: { mode: "off" },
    refusal: ABSENT_FEATURE_REFUSALS.skillWorkshop,
  },
  { path: ["gateway", "auth"], value: { mode: "token" }, refusal: ABSENT_FEATURE_REFUSALS.gatewayAuth },
  {
    path: ["update"],
    value: { checkOnStart: false, auto: { enabled: false } },
    refusal: ABSENT_FEATURE_REFUSALS.update,
  },
];

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** The config as `config.get` answers it: each absent feature's switch set to its true value. */
export function withAbsentFeaturesOff<T extends object>(config: T): T {
  const shown: Json = structuredClone(config) as Json;
  for (const feature of ABSENT_CONFIG_FEATURES) {
    let node = shown;
    for (const key of feature.path.slice(0, -1)) {
      if (!isObject(node[key])) node[key] = {};
      node = node[key] as Json;
    }
    node[feature.path.at(-1)!] = structuredClone(feature.value);
  }
  return shown as T;
}

/** A config to store: the absent features' switches dropped, with a parent they alone filled. */
export function withoutAbsentFeatures(config: TenantConfig): TenantConfig {
  const stored: Json = structuredClone(config) as Json;
  for (const feature of ABSENT_CONFIG_FEATURES) {
    const parents: Json[] = [stored];
    for (const key of feature.path.slice(0, -1)) {
      const next = parents.at(-1)![key];
      if (!isObject(next)) break;
      parents.push(next);
    }
    if (parents.length !== feature.path.length) continue;
    const leaf = feature.path.at(-1)!;
    if (!Object.hasOwn(parents.at(-1)!, leaf)) continue;
    delete parents.at(-1)![leaf];
    // A parent left empty by this removal goes too (`tools: {}` was not there before).
    for (let depth = parents.length - 1; depth > 0; depth--) {
      if (Object.keys(parents[depth]!).length > 0) break;
      delete parents[depth - 1]![feature.path[depth - 1]!];
    }
  }
  return stored as TenantConfig;
}

/**
 * A merge patch that deletes an absent feature's switch (`null`) asks for OpenClaw's default,
 * the feature on (Labs sends `{tools: {toolSearch: null}}` to turn Tool Search on): its refusal
 * and path, or undefined.
 */
export function absentFeatureDeletion(patch: unknown): { path: string; refusal: string } | undefined {
  for (const feature of ABSENT_CONFIG_FEATURES) {
    let node: unknown = patch;
    for (const [depth, key] of feature.path.entries()) {
      if (!isObject(node) || !Object.hasOwn(node, key)) break;
      node = node[key];
      const own = depth === feature.path.length - 1;
      const deleted = own ? node === null : false;
      const deletedInside = own && isObject(node) && Object.values(node).some((value) => value === null);
      if (deleted || deletedInside) return { path: feature.path.join("."), refusal: feature.refusal };
    }
  }
  return undefined;
}
