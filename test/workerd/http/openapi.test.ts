import { describe, expect, inject, it } from "vitest";
import { createApp } from "../../../src/app";
import { toOpenApiPath } from "../../../src/http/openapi/document";
import { webhookRunRequestSchema } from "../../../src/protocol/webhooks";
import { call, freshTenant, user } from "../support/helpers";

const peer = `http://127.0.0.1:${inject("peerPort")}`;
const METHODS = ["get", "post", "put", "patch", "delete"];

async function document() {
  const res = await call("/openapi.json", { token: null });
  expect(res.status).toBe(200);
  return res.data;
}

/**
 * The app's real routes (method + path), without middleware and catch-alls. A route answering
 * every method (`all`, the MCP endpoint) counts as a POST: JSON-RPC is POSTed, the others are 405.
 */
function appRoutes(): Array<{ method: string; path: string }> {
  const seen = new Set<string>();
  const routes = [];
  const all = createApp().routes;
  // Middleware (`use`) registers as ALL on a path that has its own method routes: not a route.
  const handled = new Set(all.filter((r) => r.method !== "ALL").map((r) => r.path));
  for (const route of all) {
    if (route.method === "ALL" && handled.has(route.path)) continue;
    const method = route.method === "ALL" ? "post" : route.method.toLowerCase();
    if (!METHODS.includes(method) || route.path.includes("*")) continue;
    const path = route.path.length > 1 ? route.path.replace(/\/$/, "") : route.path;
    if (seen.has(`${method} ${path}`)) continue;
    seen.add(`${method} ${path}`);
    routes.push({ method, path });
  }
  return routes;
}

/** Where a route is documented: tenant routes (served at the root too) without their /t/{tenantId} prefix. */
function documentedPath(path: string, routes: Array<{ method: string; path: string }>): string {
  if (!path.startsWith("/t/:tenantId")) return path;
  const root = path.slice("/t/:tenantId".length) || "/";
  return routes.some((r) => r.path === root) ? root : path;
}

describe("OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const doc = await document();
    expect(doc.openapi).toBe("3.1.0");
    const res = await fetch(`${peer}/control/validate-openapi`, { method: "POST", body: JSON.stringify(doc) });
    const result = (await res.json()) as { valid: boolean; errors: unknown };
    expect(result.errors).toBeNull();
    expect(result.valid).toBe(true);
  });

  it("documents every route of the app, tenant routes at the root and under /t/{tenantId}", async () => {
    const doc = await document();
    const routes = appRoutes();
    expect(routes.length).toBeGreaterThan(30);
    const missing = [];
    for (const { method, path } of routes) {
      const documented = documentedPath(path, routes);
      const tenantPrefixed = documented !== path;
      const item = doc.paths[toOpenApiPath(documented)];
      if (!item?.[method]) missing.push(`${method.toUpperCase()} ${path}`);
      else if (tenantPrefixed && !item.servers?.some((s: any) => s.url === "/t/{tenantId}"))
        missing.push(`${method.toUpperCase()} ${path} (no /t/{tenantId} server)`);
    }
    expect(missing).toEqual([]);
  });

  it("documents no route the app does not have", async () => {
    const doc = await document();
    const real = new Set(appRoutes().map((r) => `${r.method} ${toOpenApiPath(r.path)}`));
    const extra = [];
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const method of METHODS) {
        if (!item[method]) continue;
        if (!real.has(`${method} ${path}`)) extra.push(`${method} ${path}`);
        if (item.servers && !real.has(`${method} ${toOpenApiPath(`/t/:tenantId${path === "/" ? "" : path}`)}`))
          extra.push(`${method} /t/{tenantId}${path}`);
      }
    }
    expect(extra).toEqual([]);
  });

  it("gives every authenticated operation its 401 and every error the error envelope", async () => {
    const doc = await document();
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const method of METHODS) {
        const op = item[method];
        if (!op) continue;
        if (op.security?.length) expect(op.responses["401"], `${method} ${path}`).toBeDefined();
        for (const [status, response] of Object.entries<any>(op.responses)) {
          if (Number(status) < 400) continue;
          // The OpenAI-compatible routes answer in OpenAI's error shape; everything else in ours.
          const envelope = op.tags?.includes("OpenAI-compatible") ? "OpenAIError" : "Error";
          expect(response.content["application/json"].schema.$ref, `${method} ${path} ${status}`).toBe(
            `#/components/schemas/${envelope}`,
          );
        }
      }
    }
    expect(doc.paths["/v1/runs/{runId}"].get.parameters).toContainEqual(
      expect.objectContaining({ in: "query", name: "wait" }),
    );
    expect(doc.paths["/v1/admin/tenants/{id}"].delete.responses["200"].content["application/json"].schema.$ref).toBe(
      "#/components/schemas/TenantDeletion",
    );
  });

  it("describes the webhook runner request, its reply and callbacks, and the delivery body", async () => {
    const doc = await document();
    expect(Object.keys(doc.webhooks)).toEqual(["runnerRequest", "delivery"]);
    const request = doc.components.schemas.WebhookRunRequest;
    expect(request.required).toEqual(expect.arrayContaining(["type", "runId", "tenantId", "input", "context"]));
    expect(request.properties.input.type).toBe("object");
    expect(request.properties.input.required).toEqual(["message"]);
    for (const name of ["WebhookRunReply", "DeliveryWebhookBody", "RunProgress", "RunComplete"]) {
      expect(doc.components.schemas[name], name).toBeDefined();
    }
  });

  it("matches what the webhook runner really sends", async () => {
    const t = await freshTenant("openapi-hook");
    await t.config({
      agents: { list: [{ id: "main", default: true, runner: { type: "webhook", url: `${peer}/webhook/sync` } }] },
    });
    const started = await t.append("main", user("describe me", { run: true }));
    await t.call(`/v1/runs/${started.data.runId}?wait=10`);
    const recorded = (await (await fetch(`${peer}/control/recorded?path=/webhook/sync`)).json()) as any[];
    const body = recorded.find((r) => r.body?.runId === started.data.runId)?.body;
    expect(body).toBeDefined();
    // Strict: a field the webhook sends but the schema does not describe fails here.
    const parsed = webhookRunRequestSchema.strict().safeParse(body);
    expect(parsed.error?.issues ?? []).toEqual([]);
    expect(body).toMatchObject({ type: "run", tenantId: t.id, input: { message: "describe me" } });
  });
});

describe("API reference page", () => {
  it("serves a page that renders /openapi.json with scripts served by the service itself", async () => {
    const page = await call("/docs", { token: null });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/text\/html/);
    expect(page.text).toContain('src="docs/assets/swagger-ui-bundle.js"');
    expect(page.text).toContain('url: "openapi.json"');
    expect(page.text).not.toMatch(/https?:\/\//);
    const script = await call("/docs/assets/swagger-ui-bundle.js", { token: null });
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toMatch(/javascript/);
    expect(script.text).toContain("SwaggerUIBundle");
    expect((await call("/docs/assets/swagger-ui.css", { token: null })).status).toBe(200);
    expect((await call("/docs/assets/package.json", { token: null })).status).toBe(404);
  });
});
