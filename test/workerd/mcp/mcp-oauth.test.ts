import { env, exports } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { call, freshTenant, issueToken, type TestTenant } from "../support/helpers";

/**
 * OAuth 2.1 for the MCP endpoint, driven as a connector and an operator would: dynamic client
 * registration, the authorization page, PKCE, the token endpoint, calls, revocation. OAuth is
 * offered on https and loopback http origins, so these requests go to http://localhost.
 */

const ORIGIN = "http://localhost";
const REDIRECT = "http://127.0.0.1:4711/callback";

async function send(path: string, init: RequestInit = {}) {
  const res = await exports.default.fetch(`${ORIGIN}${path}`, { redirect: "manual", ...init });
  const text = await res.text();
  let data: any;
  try {
    data = JSON.parse(text);
  } catch {
    data = undefined;
  }
  return { status: res.status, headers: res.headers, text, data };
}

const form = (fields: Record<string, string | string[]>) => {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) {
    for (const v of Array.isArray(value) ? value : [value]) body.append(name, v);
  }
  return body;
};

const base64url = (bytes: ArrayBuffer) =>
  btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

async function pkce() {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)).buffer);
  const challenge = base64url(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  return { verifier, challenge };
}

async function register(t: TestTenant) {
  const res = await send(`/t/${t.id}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "Test Connector",
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    }),
  });
  expect(res.status, res.text).toBe(201);
  return res.data.client_id as string;
}

/** GET the authorization page: its handle, its binding cookie, the page itself. */
async function openConsent(t: TestTenant, clientId: string, challenge: string, scope = "operator.read operator.write") {
  const query = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "st4te",
    scope,
    resource: `${ORIGIN}/t/${t.id}/mcp`,
  });
  const path = `/t/${t.id}/oauth/authorize?${query}`;
  const page = await send(path);
  expect(page.status, page.text).toBe(200);
  const handle = /name="handle" value="([^"]+)"/.exec(page.text)?.[1];
  expect(handle).toBeTruthy();
  const cookie = page.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  return { path, page, handle: handle!, cookie };
}

async function submitConsent(
  consent: Awaited<ReturnType<typeof openConsent>>,
  fields: { token?: string; scope?: string[]; action?: string },
) {
  return send(consent.path, {
    method: "POST",
    headers: { cookie: consent.cookie, "content-type": "application/x-www-form-urlencoded" },
    body: form({
      handle: consent.handle,
      token: fields.token ?? "",
      scope: fields.scope ?? ["operator.read", "operator.write"],
      action: fields.action ?? "approve",
    }),
  });
}

async function exchange(t: TestTenant, clientId: string, code: string, verifier: string) {
  const res = await send(`/t/${t.id}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: form({
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
      client_id: clientId,
      code_verifier: verifier,
      resource: `${ORIGIN}/t/${t.id}/mcp`,
    }),
  });
  expect(res.status, res.text).toBe(200);
  return res.data as { access_token: string; refresh_token: string; scope: string; token_type: string };
}

/** The whole flow as one operator approving `scope` with `operatorToken`. */
async function connectorToken(t: TestTenant, operatorToken = t.token, scope = ["operator.read", "operator.write"]) {
  const clientId = await register(t);
  const { verifier, challenge } = await pkce();
  const consent = await openConsent(t, clientId, challenge);
  const approved = await submitConsent(consent, { token: operatorToken, scope });
  expect(approved.status, approved.text).toBe(302);
  const code = new URL(approved.headers.get("location")!).searchParams.get("code")!;
  return { clientId, ...(await exchange(t, clientId, code, verifier)) };
}

async function mcp(tenantPath: string, token: string, body: unknown) {
  return send(`${tenantPath}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify(body),
  });
}
const listTools = { jsonrpc: "2.0", id: 1, method: "tools/list" };
const toolNames = (res: { data: any }) => (res.data.result.tools as Array<{ name: string }>).map((t) => t.name).sort();

describe("OAuth for the MCP endpoint", () => {
  it("publishes authorization-server metadata with registration, PKCE S256 and the tenant's scopes", async () => {
    const t = await freshTenant("oauth-meta");
    const res = await send(`/.well-known/oauth-authorization-server/t/${t.id}`);
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({
      issuer: `${ORIGIN}/t/${t.id}`,
      authorization_endpoint: `${ORIGIN}/t/${t.id}/oauth/authorize`,
      token_endpoint: `${ORIGIN}/t/${t.id}/oauth/token`,
      registration_endpoint: `${ORIGIN}/t/${t.id}/oauth/register`,
      revocation_endpoint: `${ORIGIN}/t/${t.id}/oauth/token`,
      code_challenge_methods_supported: ["S256"],
      scopes_supported: ["operator.read", "operator.write"],
    });
  });

  it("serves the default tenant's metadata at the origin's root for 2025-03-26 clients", async () => {
    const res = await send("/.well-known/oauth-authorization-server");
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({
      issuer: `${ORIGIN}/t/default`,
      authorization_endpoint: `${ORIGIN}/t/default/oauth/authorize`,
      token_endpoint: `${ORIGIN}/t/default/oauth/token`,
      registration_endpoint: `${ORIGIN}/t/default/oauth/register`,
      code_challenge_methods_supported: ["S256"],
    });
    expect((await send("/.well-known/oauth-authorization-server/t/default")).data).toEqual(res.data);
  });

  it("registers, authorizes with an operator token, exchanges the code, calls tools, and is 401 once revoked", async () => {
    const t = await freshTenant("oauth-flow");
    const clientId = await register(t);
    const { verifier, challenge } = await pkce();
    const consent = await openConsent(t, clientId, challenge);
    expect(consent.page.text).toContain("Test Connector");
    expect(consent.page.text).toContain("127.0.0.1");
    expect(consent.page.headers.get("x-frame-options")).toBe("DENY");

    const approved = await submitConsent(consent, { token: t.token });
    expect(approved.status).toBe(302);
    const redirect = new URL(approved.headers.get("location")!);
    expect(`${redirect.origin}${redirect.pathname}`).toBe(REDIRECT);
    expect(redirect.searchParams.get("state")).toBe("st4te");
    const tokens = await exchange(t, clientId, redirect.searchParams.get("code")!, verifier);
    expect(tokens).toMatchObject({ token_type: "bearer", scope: "operator.read operator.write" });

    const listed = await mcp(`/t/${t.id}`, tokens.access_token, listTools);
    expect(listed.status).toBe(200);
    expect(toolNames(listed)).toContain("sessions_list");
    const called = await mcp(`/t/${t.id}`, tokens.access_token, {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "sessions_list", arguments: {} },
    });
    expect(called.data.result.structuredContent).toMatchObject({ count: 0, sessions: [] });

    const revoked = await send(`/t/${t.id}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form({ token: tokens.access_token, client_id: clientId }),
    });
    expect(revoked.status).toBe(200);
    const after = await mcp(`/t/${t.id}`, tokens.access_token, listTools);
    expect(after.status).toBe(401);
    expect(after.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect(after.headers.get("www-authenticate")).toContain(
      `resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource/t/${t.id}/mcp"`,
    );
  });

  it("refuses a code exchange without the PKCE verifier", async () => {
    const t = await freshTenant("oauth-pkce");
    const clientId = await register(t);
    const { challenge } = await pkce();
    const consent = await openConsent(t, clientId, challenge);
    const approved = await submitConsent(consent, { token: t.token });
    const code = new URL(approved.headers.get("location")!).searchParams.get("code")!;
    const res = await send(`/t/${t.id}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form({ grant_type: "authorization_code", code, redirect_uri: REDIRECT, client_id: clientId }),
    });
    expect(res.status).toBe(400);
    expect(res.data.error).toBe("invalid_request");
  });

  it("keeps the page open with a reason when the pasted token is not an operator token of the tenant", async () => {
    const t = await freshTenant("oauth-wrong");
    const other = await freshTenant("oauth-other");
    const clientId = await register(t);
    const { challenge } = await pkce();
    const consent = await openConsent(t, clientId, challenge);
    for (const token of ["", "not-a-token", other.token]) {
      const res = await submitConsent(consent, { token });
      expect(res.status, token).toBe(400);
      expect(res.text).toContain(`That is not an operator token of tenant ${t.id}.`);
    }
    // The handle was not used up: the right token still approves.
    expect((await submitConsent(consent, { token: t.token })).status).toBe(302);
  });

  it("sends the operator's refusal back to the client as access_denied", async () => {
    const t = await freshTenant("oauth-deny");
    const clientId = await register(t);
    const { challenge } = await pkce();
    const consent = await openConsent(t, clientId, challenge);
    const res = await submitConsent(consent, { action: "deny" });
    expect(res.status).toBe(302);
    expect(new URL(res.headers.get("location")!).searchParams.get("error")).toBe("access_denied");
  });

  it("grants only the scopes picked and held: an operator.read grant lists only read-only tools", async () => {
    const t = await freshTenant("oauth-scopes");
    const { token: readOnly } = await issueToken(t.id, ["operator.read"]);
    const viaReadToken = await connectorToken(t, readOnly);
    expect(viaReadToken.scope).toBe("operator.read");
    const viaPick = await connectorToken(t, t.token, ["operator.read"]);
    for (const { access_token } of [viaReadToken, viaPick]) {
      const res = await mcp(`/t/${t.id}`, access_token, listTools);
      expect(toolNames(res)).toEqual(["agents_list", "sessions_history", "sessions_list", "sessions_wait"]);
    }
  });

  it("binds access tokens to their tenant: a token of tenant A is 401 on /t/B/mcp", async () => {
    const a = await freshTenant("oauth-a");
    const b = await freshTenant("oauth-b");
    const { access_token } = await connectorToken(a);
    expect((await mcp(`/t/${a.id}`, access_token, listTools)).status).toBe(200);
    expect((await mcp(`/t/${b.id}`, access_token, listTools)).status).toBe(401);
    // Nor is it an operator token anywhere else.
    expect((await call(`/t/${a.id}/v1/sessions`, { token: access_token })).status).toBe(401);
  });

  it("ends a connector's access when the operator token that approved it is revoked", async () => {
    const t = await freshTenant("oauth-approver");
    const approver = await issueToken(t.id, ["operator.read", "operator.write"]);
    const { access_token } = await connectorToken(t, approver.token);
    expect((await mcp(`/t/${t.id}`, access_token, listTools)).status).toBe(200);
    await call(`/v1/admin/tenants/${t.id}/tokens/${approver.tokenId}`, { method: "DELETE", token: "test-admin-token" });
    expect((await mcp(`/t/${t.id}`, access_token, listTools)).status).toBe(401);
  });

  it("revoking the approving token revokes its grants: a refresh mints nothing afterwards", async () => {
    const t = await freshTenant("oauth-revoke-grant");
    const approver = await issueToken(t.id, ["operator.read", "operator.write"]);
    const other = await connectorToken(t); // approved by another token: untouched
    const { clientId, refresh_token } = await connectorToken(t, approver.token);
    const grants = () => env.OAUTH_KV.list({ prefix: `grant:${t.id}.${approver.tokenId}:` });
    expect((await grants()).keys).toHaveLength(1);
    const revoked = await call(`/v1/admin/tenants/${t.id}/tokens/${approver.tokenId}`, {
      method: "DELETE",
      token: "test-admin-token",
    });
    expect(revoked.status).toBe(200);
    expect((await grants()).keys).toEqual([]);
    const refreshed = await send(`/t/${t.id}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form({ grant_type: "refresh_token", refresh_token, client_id: clientId }),
    });
    expect(refreshed.status).toBe(400);
    expect(refreshed.data.error).toBe("invalid_grant");
    const still = await send(`/t/${t.id}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form({ grant_type: "refresh_token", refresh_token: other.refresh_token, client_id: other.clientId }),
    });
    expect(still.status, still.text).toBe(200);
  });

  it("a refresh re-checks the approving token even when its grant was left behind", async () => {
    const t = await freshTenant("oauth-refresh-check");
    const approver = await issueToken(t.id, ["operator.read", "operator.write"]);
    const { clientId, refresh_token } = await connectorToken(t, approver.token);
    // Revoked in the tenant object alone, as if the grant revocation had been missed.
    await env.TENANTS.getByName(t.id).revokeToken(approver.tokenId);
    const refreshed = await send(`/t/${t.id}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form({ grant_type: "refresh_token", refresh_token, client_id: clientId }),
    });
    expect(refreshed.status).toBe(400);
    expect(refreshed.data.error).toBe("invalid_grant");
  });

  it("refreshes an access token with the refresh token", async () => {
    const t = await freshTenant("oauth-refresh");
    const { clientId, refresh_token } = await connectorToken(t);
    const res = await send(`/t/${t.id}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form({ grant_type: "refresh_token", refresh_token, client_id: clientId }),
    });
    expect(res.status, res.text).toBe(200);
    expect((await mcp(`/t/${t.id}`, res.data.access_token, listTools)).status).toBe(200);
  });

  it("offers no OAuth on a plain-http origin that is not loopback", async () => {
    const t = await freshTenant("oauth-http");
    const res = await call(`/.well-known/oauth-authorization-server/t/${t.id}`, { token: null });
    expect(res.status).toBe(400);
    expect(res.data.error).toBe("invalid_request");
  });
});

describe("OAuth endpoints under hostile input", () => {
  it("answers generated registration, token, revocation and authorization requests with 4xx or redirects, never 5xx", async () => {
    const t = await freshTenant("oauth-fuzz");
    const clientId = await register(t);
    const str = fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.constantFrom(clientId, REDIRECT, "https://evil.example/cb", "S256", "plain", "code", "token", "a:b:c", ""),
    );
    const formFields = fc.dictionary(
      fc.constantFrom(
        "grant_type",
        "code",
        "redirect_uri",
        "client_id",
        "client_secret",
        "code_verifier",
        "refresh_token",
        "token",
        "token_type_hint",
        "resource",
        "scope",
        "handle",
        "action",
      ),
      str,
      { maxKeys: 6 },
    );
    const registration = fc.oneof(
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc
        .record(
          {
            redirect_uris: fc.oneof(fc.array(str, { maxLength: 3 }), str),
            client_name: str,
            token_endpoint_auth_method: fc.constantFrom("none", "client_secret_basic", "private_key_jwt", "x"),
            grant_types: fc.array(fc.constantFrom("authorization_code", "refresh_token", "implicit", "x"), {
              maxLength: 3,
            }),
            response_types: fc.array(fc.constantFrom("code", "token"), { maxLength: 2 }),
          },
          { requiredKeys: [] },
        )
        .map((v) => JSON.stringify(v)),
      fc.string({ maxLength: 40 }),
    );
    const request = fc.oneof(
      registration.map((body) => ({
        path: `/t/${t.id}/oauth/register`,
        init: { method: "POST", headers: { "content-type": "application/json" }, body },
      })),
      formFields.map((fields) => ({
        path: `/t/${t.id}/oauth/token`,
        init: {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams(fields).toString(),
        },
      })),
      formFields.map((fields) => ({ path: `/t/${t.id}/oauth/authorize?${new URLSearchParams(fields)}`, init: {} })),
      formFields.map((fields) => ({
        path: `/t/${t.id}/oauth/authorize?${new URLSearchParams(fields)}`,
        init: {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams(fields).toString(),
        },
      })),
      fc.constantFrom(
        {
          path: `/t/${t.id}/oauth/token`,
          init: { method: "POST", headers: { "content-type": "application/json" }, body: "{" },
        },
        { path: `/t/${t.id}/oauth/token`, init: { method: "POST", body: "x".repeat(70 * 1024) } },
        { path: `/t/${t.id}/oauth/register`, init: { method: "GET" } },
        { path: "/t/NOT_VALID/oauth/token", init: { method: "POST", body: "a=b" } },
        { path: "/.well-known/oauth-authorization-server/t/..", init: {} },
        { path: "/.well-known/oauth-protected-resource/t/x%2Fy/mcp", init: {} },
      ),
    );
    await fc.assert(
      fc.asyncProperty(request, async ({ path, init }) => {
        const res = await send(path, init as RequestInit);
        expect(res.status, `${path} → ${res.status} ${res.text.slice(0, 200)}`).toBeLessThan(500);
      }),
      { numRuns: 200 },
    );
  });
});
