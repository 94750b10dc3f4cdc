import type { Hono, MiddlewareHandler } from "hono";
import type { AppEnv } from "../http/context";
import type { Operation } from "../http/openapi/operations";
import type { MethodTable } from "./method";

/** Where a slice's HTTP routes mount in the app (src/http/core-app.ts composes them in this order). */
export type SliceRoutes = {
  /** Routes with their own auth and error shape, mounted at the root before the tenant routes (MCP, OpenAI). */
  own?: Hono<AppEnv>;
  /** Webhooks authenticated by their own secret, before tenant auth; they pass on what is not theirs. */
  ingress?: MiddlewareHandler<AppEnv>;
  /** Tenant routes, behind tenant CORS and auth, at /t/<tenantId> and (default tenant) at the root. */
  tenant?: readonly Hono<AppEnv>[];
};

/**
 * A feature as a vertical slice: everything it adds to the service's surfaces, registered in one
 * place (src/slices.ts) so the gateway's method table, the HTTP app and the OpenAPI document only
 * compose slices.
 */
export type Slice = {
  name: string;
  /** Gateway methods by name. */
  methods?: MethodTable;
  routes?: SliceRoutes;
  /** The OpenAPI operations of its routes. */
  openApi?: readonly Operation[];
};

/** Each key once: a second registration of the same name throws, naming both slices. */
function claim(owners: Map<string, string>, kind: string, key: string, slice: string): void {
  const owner = owners.get(key);
  if (owner !== undefined) throw new Error(`${kind} ${key} is registered twice: by the ${owner} and ${slice} slices`);
  owners.set(key, slice);
}

/** The gateway's method table: every slice's methods, each name once. */
export function composeMethods(slices: readonly Slice[]): MethodTable {
  const owners = new Map<string, string>();
  const table: Record<string, MethodTable[string]> = {};
  for (const slice of slices) {
    for (const [name, method] of Object.entries(slice.methods ?? {})) {
      claim(owners, "gateway method", name, slice.name);
      table[name] = method;
    }
  }
  return table;
}

/** Every slice's OpenAPI operations after `core`'s, each method + path once. */
export function composeOperations(core: readonly Operation[], slices: readonly Slice[]): Operation[] {
  const owners = new Map<string, string>();
  const all = [...core.map((operation) => ({ operation, slice: "core" }))];
  for (const slice of slices) for (const operation of slice.openApi ?? []) all.push({ operation, slice: slice.name });
  for (const { operation, slice } of all)
    claim(owners, "OpenAPI operation", `${operation.method.toUpperCase()} ${operation.path}`, slice);
  return all.map(({ operation }) => operation);
}

/**
 * Fails on an HTTP route (method + path) that two slices register. A router registers one
 * route per handler (middleware, validators), so repeats within one slice are not counted.
 */
export function checkRoutes(slices: readonly Slice[]): void {
  const owners = new Map<string, string>();
  for (const slice of slices) {
    const routers = [...(slice.routes?.own ? [slice.routes.own] : []), ...(slice.routes?.tenant ?? [])];
    const keys = new Set(
      routers.flatMap((router) =>
        router.routes.filter((route) => route.method !== "ALL").map((route) => `${route.method} ${route.path}`),
      ),
    );
    for (const key of keys) claim(owners, "route", key, slice.name);
  }
}
