import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { AppEnv } from "../../../src/http/context";
import { OPERATIONS as CORE_OPERATIONS, type Operation } from "../../../src/http/openapi/operations";
import { defineMethod, emptyAnswer } from "../../../src/registry/method";
import { checkRoutes, composeMethods, composeOperations, type Slice } from "../../../src/registry/slice";
import { GATEWAY_METHODS, SLICES } from "../../../src/slices";

const ping = emptyAnswer(() => ({ pong: true }));

function router(path: string): Hono<AppEnv> {
  return new Hono<AppEnv>().get(path, (c) => c.json({ ok: true }));
}

const operation = (path: string): Operation => ({
  method: "get",
  path,
  scope: "tenant",
  tag: "Test",
  summary: "test",
  auth: "operator.read",
  ok: { status: 200, description: "ok" },
});

/**
 * The slice registry (src/registry/slice.ts): the gateway's method table, the app's routes and the
 * OpenAPI operations are composed from the feature slices, and a name or route two slices claim
 * fails when the worker loads, naming both.
 */
describe("feature slices", () => {
  it("compose the service's gateway method table, each method from one slice", () => {
    const perSlice = SLICES.reduce((count, slice) => count + Object.keys(slice.methods ?? {}).length, 0);
    expect(Object.keys(GATEWAY_METHODS)).toHaveLength(perSlice);
    expect(GATEWAY_METHODS["secrets.store.set"]).toBe(
      SLICES.find((s) => s.name === "secrets")?.methods?.["secrets.store.set"],
    );
    expect(SLICES.find((s) => s.name === "console")?.methods).toHaveProperty("logs.tail");
  });

  it("refuse a gateway method registered twice, naming both slices", () => {
    const a: Slice = { name: "alpha", methods: { ping } };
    const b: Slice = { name: "beta", methods: { ping } };
    expect(composeMethods([a])).toEqual({ ping });
    expect(() => composeMethods([a, b])).toThrow(
      "gateway method ping is registered twice: by the alpha and beta slices",
    );
  });

  it("refuse a route two slices register, but not a route's several handlers in one slice", () => {
    const own = new Hono<AppEnv>().get("/v1/x", (_c, next) => next()).get("/v1/x", (c) => c.text("x"));
    expect(() => checkRoutes([{ name: "alpha", routes: { tenant: [own] } }])).not.toThrow();
    const twice: Slice[] = [
      { name: "alpha", routes: { tenant: [router("/v1/x")] } },
      { name: "beta", routes: { own: router("/v1/x") } },
    ];
    expect(() => checkRoutes(twice)).toThrow("route GET /v1/x is registered twice: by the alpha and beta slices");
  });

  it("refuse an OpenAPI operation documented twice, the core's included", () => {
    expect(composeOperations([operation("/a")], [{ name: "alpha", openApi: [operation("/b")] }])).toHaveLength(2);
    expect(() => composeOperations([operation("/a")], [{ name: "alpha", openApi: [operation("/a")] }])).toThrow(
      "OpenAPI operation GET /a is registered twice: by the core and alpha slices",
    );
  });

  it("register the service's own routes and operations once each", () => {
    expect(() => checkRoutes(SLICES)).not.toThrow();
    expect(() => composeOperations(CORE_OPERATIONS, SLICES)).not.toThrow();
  });

  it("type a method's params from its schema", () => {
    const echo = defineMethod({
      scope: "operator.read",
      roles: [],
      params: z.object({ text: z.string() }),
      handle: ({ params }) => params.text.toUpperCase(),
    });
    expect(echo.params.parse({ text: "hi" })).toEqual({ text: "hi" });
  });

  it("give a handler only the tenant roles its method declares (the rest fail to typecheck)", () => {
    const listing = defineMethod({
      scope: "operator.read",
      roles: ["index"],
      params: z.object({ tokenId: z.string() }),
      handle: async ({ ctx, params }) => {
        await ctx.tenant.agentIds();
        // @ts-expect-error revokeToken is the access role's, which this method did not declare.
        await ctx.tenant.revokeToken(params.tokenId);
      },
    });
    expect(listing.roles).toEqual(["index"]);
    const none = defineMethod({
      scope: null,
      roles: [],
      params: z.object({}),
      // @ts-expect-error a method declaring no role reaches no tenant method.
      handle: ({ ctx }) => ctx.tenant.agentIds(),
    });
    expect(none.roles).toEqual([]);
  });
});
