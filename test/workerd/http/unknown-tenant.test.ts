import { listDurableObjectIds } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { freshTenant } from "../support/helpers";

/**
 * A tenant id the directory does not list reaches no object (issue 44, finding 4): an HTTP
 * request, a CORS preflight, a WebSocket upgrade, a webhook or hook POST and an OpenAI call
 * naming `/t/<unknown>/…` are answered as before (401 in the door's shape, the upgrade 404, the
 * preflight 204 without CORS headers), and no TenantObject is stored for the id. A listed tenant
 * still gets through.
 */

const tenantObjectIds = async () => new Set((await listDurableObjectIds(env.TENANTS)).map((id) => id.toString()));

describe("an unknown tenant id", () => {
  it("is answered on every door as before, and creates no TenantObject", async () => {
    const id = `nope-${crypto.randomUUID().slice(0, 8)}`;
    const at = (path: string, init: RequestInit = {}) => exports.default.fetch(`http://svc.test/t/${id}${path}`, init);
    // Each door answers as it answered before (a listed tenant without valid credentials: 401,
    // so ids cannot be probed), now without the object.
    const unauthorized = { ok: false, error: { type: "unauthorized", message: "Unauthorized" } };
    for (const res of [
      await at("/v1/sessions", { headers: { authorization: "Bearer ocs_whatever" } }),
      await at("/telegram-webhook", { method: "POST", body: "{}" }),
      await at("/hooks/agent", { method: "POST", body: "{}" }),
      await at("/tools/invoke", { method: "POST", body: "{}" }),
    ]) {
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual(unauthorized);
    }
    const preflight = await at("/v1/sessions", {
      method: "OPTIONS",
      headers: { origin: "https://evil.example", "access-control-request-method": "GET" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
    const upgrade = await at("", { headers: { upgrade: "websocket" } });
    expect(upgrade.status).toBe(404);
    expect(await upgrade.json()).toEqual({ ok: false, error: { type: "not_found", message: "No such gateway" } });
    const openai = await at("/v1/chat/completions", { method: "POST", body: "{}" });
    expect(openai.status).toBe(401);
    expect(((await openai.json()) as { error: { type: string } }).error.type).toBeTypeOf("string");
    expect(await tenantObjectIds()).not.toContain(env.TENANTS.idFromName(id).toString());

    // A listed tenant is let through (and remembered by the isolate).
    const t = await freshTenant("known");
    for (let i = 0; i < 2; i++) expect((await t.list()).status).toBe(200);
  });
});
