// Outbound requests of tenant config against a real `wrangler dev` (docs/operations.md,
// "Outbound requests"), in two starts of one server on one state dir:
//   1. as `npm run dev` starts it (OUTBOUND_ALLOW_LOOPBACK=true from .dev.vars.example, no
//      PUBLIC_ORIGIN): a runner and a delivery webhook on loopback peers are written and work,
//      and the Host header names the OAuth issuer (the documented local-dev behaviour);
//   2. as a deployment (OUTBOUND_ALLOW_LOOPBACK=false, PUBLIC_ORIGIN set, the operator allowlisting
//      127.0.0.2 only): the same stored config is refused at fetch time (run error, dead delivery,
//      the peers hear nothing); a runner pointed at the service's own /t/<id>/v1 is refused when
//      written, and one pointed at it through another name (a forwarding proxy on 127.0.0.2) ends
//      at the first hop (hop header, 508): one completion request leaves one session, 10 s later
//      still one; a spoofed Host header changes neither a webhook run's callback URLs nor the issuer.
// Run with `node --test test/e2e/outbound-guard.e2e.mjs`.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { freePort, killAllServersNow, startServer } from "../../bench/lib/server.mjs";
import { connectGateway } from "./gateway-rpc.mjs";
import { createTenantToken, httpJson, waitFor } from "./http-json.mjs";

process.once("exit", killAllServersNow);

/** The stand-in for "another name of this service" (an address only the allowlist lets through). */
const ALIAS_HOST = "127.0.0.2";

/** A Node server on `host` (an ephemeral port); `hits` records each request. */
function listen(host, handler) {
  const hits = [];
  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = Buffer.concat(chunks).toString();
    hits.push({ method: req.method, url: req.url, headers: req.headers, body });
    handler(req, res, body);
  });
  return new Promise((resolve) =>
    server.listen(0, host, () =>
      resolve({ url: `http://${host}:${server.address().port}`, hits, close: () => server.close() }),
    ),
  );
}

/** An OpenAI-compatible model that streams one short reply. */
const startModel = () =>
  listen("127.0.0.1", (_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(`data: ${JSON.stringify({ choices: [{ delta: { content: "model reply" } }] })}\n\n`);
    res.write(`data: ${JSON.stringify({ choices: [{ delta: {}, finish_reason: "stop" }] })}\n\n`);
    res.end("data: [DONE]\n\n");
  });

/** A forwarding proxy to `target` that passes every header on (as a tenant's own proxy may). */
const startProxy = (target) =>
  listen(ALIAS_HOST, (req, res, body) => {
    const { host: _host, "content-length": _length, ...headers } = req.headers;
    fetch(`${target}${req.url}`, { method: req.method, headers, body: body || undefined })
      .then(async (answer) => {
        res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "text/plain" });
        res.end(Buffer.from(await answer.arrayBuffer()));
      })
      .catch((error) => res.writeHead(502).end(String(error)));
  });

/** One HTTP request with a Host header of our choosing (fetch does not let us set it). */
function withHost(port, host, method, path, { token, body } = {}) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port,
        method,
        path,
        headers: {
          host,
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(payload ? { "content-type": "application/json", "content-length": Buffer.byteLength(payload) } : {}),
        },
      },
      (res) => {
        const chunks = [];
        res.on("data", (chunk) => chunks.push(chunk));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString();
          let json;
          try {
            json = JSON.parse(text);
          } catch {}
          resolve({ status: res.statusCode, text, json });
        });
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

let persistDir;
let port;
let server;
const peers = {};
const tenants = {};

async function makeTenant(label) {
  const id = `${label}-${crypto.randomUUID().slice(0, 8)}`;
  const token = await createTenantToken(server.baseUrl, id);
  const http = (method, path, body) =>
    httpJson(server.baseUrl, method, `/t/${id}${path}`, {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { body } : {}),
      timeoutMs: 30_000,
    });
  return { id, token, http };
}

const sessionCount = async (tenant) => {
  const listed = await tenant.http("GET", "/v1/sessions");
  assert.equal(listed.status, 200, listed.text);
  return listed.json.totalCount;
};

/** One agent run over the gateway; answers agent.wait's payload. */
async function gatewayRun(tenant, runId) {
  const gateway = await connectGateway(`${server.baseUrl.replace(/^http/, "ws")}/t/${tenant.id}`, tenant.token);
  try {
    const started = await gateway.call("agent", { message: "hello", idempotencyKey: runId, sessionKey: "main" });
    assert.equal(started.ok, true, JSON.stringify(started));
    return (await gateway.call("agent.wait", { runId, timeoutMs: 20_000 }, 30_000)).payload;
  } finally {
    gateway.close();
  }
}

/** An announce delivery of a sessions_send flow (echo runner, no reply-back turns), once it settles. */
async function announce(tenant, label) {
  const key = `agent:main:${label}`;
  const seeded = await tenant.http("POST", `/v1/sessions/${encodeURIComponent(key)}/messages`, {
    role: "user",
    content: "hi",
    deliveryContext: { channel: "slack", to: "C42" },
  });
  assert.ok(seeded.status < 300, seeded.text);
  const sent = await tenant.http("POST", "/tools/invoke", {
    tool: "sessions_send",
    args: { sessionKey: key, message: "status?", timeoutSeconds: 0 },
  });
  assert.equal(sent.status, 200, sent.text);
  const settled = await waitFor(
    `the announce of ${key} settles`,
    async () => {
      const listed = await tenant.http("GET", `/v1/sessions/${encodeURIComponent(key)}/deliveries`);
      const delivery = listed.json?.deliveries?.[0];
      return { done: delivery !== undefined && delivery.status !== "pending", delivery };
    },
    30_000,
  );
  return settled.delivery;
}

before(async () => {
  peers.model = await startModel();
  peers.sink = await listen("127.0.0.1", (_req, res) => res.writeHead(200).end());
  persistDir = await mkdtemp(join(tmpdir(), "oc-outbound-"));
  port = await freePort();
  server = await startServer({ port, persistDir });
});

after(async () => {
  await server?.stop();
  for (const peer of Object.values(peers)) peer.close();
  if (persistDir) await rm(persistDir, { recursive: true, force: true });
});

test("outbound URLs: loopback works only in local development, never the service itself, Host never names it", {
  timeout: 300_000,
}, async () => {
  // ── 1. Local development: loopback peers are allowed. ──────────────────────────────────────
  tenants.b = await makeTenant("ob-run");
  const runnerConfig = {
    agents: { defaults: { runner: { type: "openai", baseUrl: `${peers.model.url}/v1`, model: "m" } } },
  };
  assert.equal((await tenants.b.http("PUT", "/v1/config", runnerConfig)).status, 200);
  const devRun = await gatewayRun(tenants.b, "ob-dev-run");
  assert.equal(devRun.status, "ok", JSON.stringify(devRun));
  assert.equal(peers.model.hits.length, 1);
  assert.equal(peers.model.hits[0].headers["x-openclaw-sessions-hop"], "1", "runner requests carry the hop header");

  tenants.d = await makeTenant("ob-deliver");
  const deliveryConfig = {
    gateway: { tools: { allow: ["sessions_send"] } },
    tools: { sessions: { visibility: "all" } },
    session: { agentToAgent: { maxPingPongTurns: 0 } },
    delivery: { webhookUrl: `${peers.sink.url}/deliver`, maxAttempts: 1 },
  };
  const putDelivery = await tenants.d.http("PUT", "/v1/config", deliveryConfig);
  assert.equal(putDelivery.status, 200, putDelivery.text);
  const devDelivery = await announce(tenants.d, "dev");
  assert.equal(devDelivery.status, "delivered", JSON.stringify(devDelivery));
  assert.equal(peers.sink.hits.length, 1);

  // Without PUBLIC_ORIGIN the Host header names the issuer (the risk docs/operations.md states).
  const spoofedDev = await withHost(
    port,
    "evil.example:666",
    "GET",
    `/.well-known/oauth-protected-resource/t/${tenants.b.id}/mcp`,
  );
  assert.equal(spoofedDev.status, 200, spoofedDev.text);
  assert.deepEqual(spoofedDev.json.authorization_servers, [`http://evil.example:666/t/${tenants.b.id}`]);

  // ── 2. The same state as a deployment: loopback refused, a public origin, one allowlisted host. ──
  await server.stop();
  const publicOrigin = `http://localhost:${port}`;
  server = await startServer({
    port,
    persistDir,
    vars: { OUTBOUND_ALLOW_LOOPBACK: "false", OUTBOUND_ALLOWED_HOSTS: ALIAS_HOST, PUBLIC_ORIGIN: publicOrigin },
  });

  // (b) Stored config that points at loopback is refused when the request would be sent.
  const refusedRun = await gatewayRun(tenants.b, "ob-prod-run");
  assert.equal(refusedRun.status, "error", JSON.stringify(refusedRun));
  assert.match(refusedRun.error, /outbound request refused: 127\.0\.0\.1 is a loopback address/);
  assert.equal(peers.model.hits.length, 1, "the model heard nothing more");
  const refusedDelivery = await announce(tenants.d, "prod");
  assert.equal(refusedDelivery.status, "dead", JSON.stringify(refusedDelivery));
  assert.match(refusedDelivery.lastError, /outbound request refused: 127\.0\.0\.1 is a loopback address/);
  assert.equal(peers.sink.hits.length, 1, "the delivery sink heard nothing more");
  // A public (here: allowlisted) host cannot bounce a request inward: redirects are not followed.
  peers.bouncer = await listen(ALIAS_HOST, (_req, res) =>
    res.writeHead(307, { location: `${peers.sink.url}/bounced` }).end(),
  );
  tenants.e = await makeTenant("ob-bounce");
  const putBouncer = await tenants.e.http("PUT", "/v1/config", {
    agents: { defaults: { runner: { type: "webhook", url: `${peers.bouncer.url}/run` } } },
  });
  assert.equal(putBouncer.status, 200, putBouncer.text);
  const bounced = await gatewayRun(tenants.e, "ob-bounce-run");
  assert.equal(bounced.status, "error", JSON.stringify(bounced));
  assert.match(bounced.error, /^webhook answered 307/);
  assert.equal(peers.bouncer.hits.length, 1);
  assert.equal(peers.sink.hits.length, 1, "the redirect's target heard nothing");
  // … and when written (a name, an address, the switch off).
  for (const baseUrl of [`${peers.model.url}/v1`, "http://localhost:11434/v1", "http://169.254.169.254/v1"]) {
    const put = await tenants.b.http("PUT", "/v1/config", {
      agents: { defaults: { runner: { type: "openai", baseUrl, model: "m" } } },
    });
    assert.equal(put.status, 400, `${baseUrl}: ${put.text}`);
    assert.match(put.json.error.message, /^invalid config: agents\.defaults\.runner\.baseUrl: /);
  }

  // (a) The loop: the service's own /t/<id>/v1, by its address or its public origin, is refused when written …
  tenants.a = await makeTenant("ob-loop");
  const gateway = await connectGateway(`${server.baseUrl.replace(/^http/, "ws")}/t/${tenants.a.id}`, tenants.a.token);
  const stored = await gateway.call("secrets.store.set", {
    name: "SELF_TOKEN",
    value: tenants.a.token,
    kind: "secret",
  });
  gateway.close();
  assert.equal(stored.ok, true, JSON.stringify(stored));
  const selfRunner = (baseUrl) => ({
    // No session tools offered: each hop's request is a plain completion the next hop accepts.
    tools: { deny: ["*"] },
    agents: {
      defaults: {
        runner: {
          type: "openai",
          baseUrl,
          // The service's own model name: without the hop guard each hop would start the next run.
          model: "openclaw",
          apiKey: { source: "store", provider: "default", id: "SELF_TOKEN" },
        },
      },
    },
  });
  for (const origin of [server.baseUrl, publicOrigin]) {
    const put = await tenants.a.http("PUT", "/v1/config", selfRunner(`${origin}/t/${tenants.a.id}/v1`));
    assert.equal(put.status, 400, put.text);
    assert.match(put.json.error.message, /agents\.defaults\.runner\.baseUrl: .* is this service's own origin/);
  }
  // … and through another name (a proxy that passes the hop header on) it ends at the first hop.
  peers.proxy = await startProxy(server.baseUrl);
  const putLoop = await tenants.a.http("PUT", "/v1/config", selfRunner(`${peers.proxy.url}/t/${tenants.a.id}/v1`));
  assert.equal(putLoop.status, 200, putLoop.text);
  // (Without the guard the request never answers: each hop waits for the next. Bounded here.)
  const completion = await httpJson(server.baseUrl, "POST", `/t/${tenants.a.id}/v1/chat/completions`, {
    authorization: `Bearer ${tenants.a.token}`,
    body: { model: "openclaw", messages: [{ role: "user", content: "call yourself" }] },
    timeoutMs: 10_000,
  }).catch((error) => ({ status: 0, text: String(error) }));
  assert.equal(await sessionCount(tenants.a), 1, "one session after the one request");
  await new Promise((resolve) => setTimeout(resolve, 10_000));
  assert.equal(await sessionCount(tenants.a), 1, "no new session within 10 s of the one request");
  assert.ok(completion.status >= 400, completion.text);
  const [session] = (await tenants.a.http("GET", "/v1/sessions")).json.sessions;
  const runs = await tenants.a.http("GET", `/v1/sessions/${encodeURIComponent(session.key)}/runs`);
  assert.match(runs.json.runs[0].error, /^model endpoint answered 508: .*Loop detected/, runs.text);
  assert.equal(peers.proxy.hits.length, 1, "the proxy forwarded exactly one runner request");
  assert.equal(peers.proxy.hits[0].headers["x-openclaw-sessions-hop"], "1");

  // (c) With PUBLIC_ORIGIN set, a spoofed Host header names neither the callbacks nor the issuer.
  peers.host = await listen(ALIAS_HOST, (_req, res) =>
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ reply: "hosted reply" })),
  );
  tenants.c = await makeTenant("ob-host");
  const putWebhook = await tenants.c.http("PUT", "/v1/config", {
    agents: { defaults: { runner: { type: "webhook", url: `${peers.host.url}/run` } } },
  });
  assert.equal(putWebhook.status, 200, putWebhook.text);
  const spoofedRun = await withHost(port, "evil.example:666", "POST", `/t/${tenants.c.id}/v1/chat/completions`, {
    token: tenants.c.token,
    body: { model: "openclaw", messages: [{ role: "user", content: "hi" }] },
  });
  assert.equal(spoofedRun.status, 200, spoofedRun.text);
  const callbacks = JSON.parse(peers.host.hits[0].body).callbacks;
  assert.ok(callbacks.events.startsWith(`${publicOrigin}/t/${tenants.c.id}/v1/runs/`), JSON.stringify(callbacks));
  assert.ok(callbacks.complete.startsWith(`${publicOrigin}/t/${tenants.c.id}/v1/runs/`), JSON.stringify(callbacks));
  const spoofedIssuer = await withHost(
    port,
    "evil.example:666",
    "GET",
    `/.well-known/oauth-protected-resource/t/${tenants.c.id}/mcp`,
  );
  assert.deepEqual(spoofedIssuer.json.authorization_servers, [`${publicOrigin}/t/${tenants.c.id}`]);
  assert.equal(spoofedIssuer.json.resource, `${publicOrigin}/t/${tenants.c.id}/mcp`);
  const metadata = await withHost(
    port,
    "evil.example:666",
    "GET",
    `/.well-known/oauth-authorization-server/t/${tenants.c.id}`,
  );
  assert.equal(metadata.status, 200, metadata.text);
  assert.equal(metadata.json.issuer, `${publicOrigin}/t/${tenants.c.id}`);
  assert.equal(metadata.json.token_endpoint, `${publicOrigin}/t/${tenants.c.id}/oauth/token`);
});
