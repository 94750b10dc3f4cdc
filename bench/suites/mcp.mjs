// MCP suite: one tool call over MCP (raw JSON-RPC POST, the SDK client, an OAuth access token)
// against the same call over POST /tools/invoke, interleaved in one run on one tenant.
import { performance } from "node:perf_hooks";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { summarize } from "../lib/measure.mjs";

export const description =
  "MCP: sessions_list limit 50 over MCP (JSON-RPC POST, SDK client, OAuth token) vs POST /tools/invoke, interleaved";

const ADMIN_TOKEN = "dev-admin-token";
const TENANT = "bench-mcp";
const SESSIONS = 60;
const LIMIT = 50;
const SEED_CONCURRENCY = 8;

export async function run(ctx) {
  const { baseUrl, log, signal } = ctx;
  const reps = ctx.quick ? 30 : 300;
  const warmups = 10;

  const token = await setUpTenant(ctx);
  const prefix = `${baseUrl}/t/${TENANT}`;
  const post = async (url, bearer, body, accept) => {
    const res = await fetch(url, {
      method: "POST",
      headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json", accept },
      body: JSON.stringify(body),
      signal: AbortSignal.any([signal, AbortSignal.timeout(30_000)]),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`POST ${url} → ${res.status}: ${text.slice(0, 200)}`);
    return text;
  };
  const expectRows = (count, what) => {
    if (count !== LIMIT) throw new Error(`${what}: ${count} sessions, expected ${LIMIT}`);
  };

  const invoke = async () => {
    const text = await post(
      `${prefix}/tools/invoke`,
      token,
      { tool: "sessions_list", args: { limit: LIMIT } },
      "application/json",
    );
    expectRows(JSON.parse(text).result.details.count, "tools/invoke");
  };
  const mcpCall = (bearer) => async () => {
    const text = await post(
      `${prefix}/mcp`,
      bearer,
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "sessions_list", arguments: { limit: LIMIT } } },
      "application/json, text/event-stream",
    );
    expectRows(JSON.parse(text).result.structuredContent.count, "mcp tools/call");
  };

  const transport = new StreamableHTTPClientTransport(new URL(`${prefix}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const sdk = new Client({ name: "bench", version: "1.0.0" });
  await sdk.connect(transport);
  const sdkCall = async () => {
    const result = await sdk.callTool({ name: "sessions_list", arguments: { limit: LIMIT } });
    expectRows(result.structuredContent.count, "sdk callTool");
  };

  const oauthToken = await connectorToken(baseUrl, token);

  const variants = [
    ["POST /tools/invoke", invoke],
    ["MCP tools/call (JSON-RPC POST)", mcpCall(token)],
    ["MCP SDK client callTool", sdkCall],
    ["MCP tools/call with OAuth token", mcpCall(oauthToken)],
  ];
  log(`sessions_list limit ${LIMIT}: ${warmups} warm-ups, then ${reps} rounds of ${variants.length} interleaved calls`);
  const samples = new Map(variants.map(([name]) => [name, []]));
  const errors = new Map(variants.map(([name]) => [name, 0]));
  for (let i = 0; i < warmups + reps; i++) {
    signal?.throwIfAborted();
    for (const [name, task] of variants) {
      const t0 = performance.now();
      try {
        await task();
        if (i >= warmups) samples.get(name).push(performance.now() - t0);
      } catch (error) {
        errors.set(name, errors.get(name) + 1);
        if (errors.get(name) <= 3) log(`!! ${name}: ${error.message}`);
      }
    }
  }
  await sdk.close();

  const rows = [];
  const p50 = new Map();
  for (const [name] of variants) {
    const s = summarize(samples.get(name));
    p50.set(name, s.p50);
    rows.push({
      name: `${name} p50`,
      value: s.p50,
      unit: "ms",
      note: `n=${s.n} sequential, interleaved; sessions_list limit ${LIMIT} of ${SESSIONS}`,
      errors: errors.get(name),
    });
    rows.push({ name: `${name} p99`, value: s.p99, unit: "ms", note: `max ${s.max.toFixed(1)} ms` });
  }
  const base = p50.get("POST /tools/invoke");
  for (const [name] of variants.slice(1)) {
    rows.push({ name: `${name} / tools/invoke p50`, value: p50.get(name) / base, unit: "ratio" });
  }
  return rows;
}

/** A tenant of its own with SESSIONS sessions, all visible to the main session; returns an operator token. */
async function setUpTenant({ baseUrl, log }) {
  const admin = (path, body) =>
    fetch(`${baseUrl}/v1/admin${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const created = await admin("/tenants", { id: TENANT });
  if (created.status !== 201 && created.status !== 409) throw new Error(`create tenant: ${created.status}`);
  const issued = await admin(`/tenants/${TENANT}/tokens`, {
    scopes: ["operator.read", "operator.write", "operator.admin"],
  });
  if (issued.status !== 201) throw new Error(`issue token: ${issued.status}`);
  const { token } = await issued.json();
  const request = (method, path, body) =>
    fetch(`${baseUrl}/t/${TENANT}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const config = await request("PUT", "/v1/config", {
    tools: { sessions: { visibility: "agent" } },
    rateLimit: { toolsPerMinute: 1_000_000 },
  });
  if (config.status !== 200) throw new Error(`PUT config: ${config.status}`);
  log(`seeding ${SESSIONS} sessions in tenant ${TENANT}`);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < SESSIONS; i = next++) {
      const res = await request("POST", `/v1/sessions/${encodeURIComponent(`agent:main:mcp-${i}`)}/messages`, {
        role: "user",
        content: `mcp bench seed ${i}`,
      });
      if (res.status !== 201) throw new Error(`seed ${i}: ${res.status}`);
    }
  };
  await Promise.all(Array.from({ length: SEED_CONCURRENCY }, worker));
  return token;
}

/** Registration, the operator's approval and the code exchange, as a connector would do them. */
async function connectorToken(baseUrl, operatorToken) {
  const issuer = `${baseUrl}/t/${TENANT}`;
  const redirect = "http://127.0.0.1:9/callback";
  const registered = await fetch(`${issuer}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_name: "bench", redirect_uris: [redirect], token_endpoint_auth_method: "none" }),
  });
  const { client_id } = await registered.json();
  const verifier = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
  const challenge = Buffer.from(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))).toString(
    "base64url",
  );
  const query = new URLSearchParams({
    response_type: "code",
    client_id,
    redirect_uri: redirect,
    code_challenge: challenge,
    code_challenge_method: "S256",
    scope: "operator.read operator.write",
    state: "bench",
  });
  const authorize = `${issuer}/oauth/authorize?${query}`;
  const page = await fetch(authorize);
  const handle = /name="handle" value="([^"]+)"/.exec(await page.text())?.[1];
  const cookie = page.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const form = new URLSearchParams({ handle, token: operatorToken, action: "approve" });
  form.append("scope", "operator.read");
  const decided = await fetch(authorize, {
    method: "POST",
    redirect: "manual",
    headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
    body: form,
  });
  const code = new URL(decided.headers.get("location")).searchParams.get("code");
  const exchanged = await fetch(`${issuer}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: redirect,
      client_id,
      code_verifier: verifier,
    }),
  });
  const tokens = await exchanged.json();
  if (!tokens.access_token) throw new Error(`OAuth code exchange failed: ${JSON.stringify(tokens)}`);
  return tokens.access_token;
}
