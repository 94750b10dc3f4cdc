// Fake Microsoft Bot Connector on loopback (no recording of Teams exists: shapes from the Bot Framework
// REST API docs and OpenClaw's msteams plugin). One process plays the three Microsoft services a bot meets:
//   node fake-msteams.mjs [port]      (default 18695; MSTEAMS_APP_ID / MSTEAMS_APP_PASSWORD set the bot)
// Login:     POST /<tenant>/oauth2/v2.0/token (client credentials) -> {access_token, expires_in}
// OpenID:    GET /v1/.well-known/openidconfiguration -> {issuer, jwks_uri}; GET /keys -> its own RSA key (kid fake-msteams-key)
// Connector: POST /v3/conversations/<id>/activities -> {id}; the Bearer must be a token the login issued
// Control:   GET /__calls?since=<seq>, POST /__reset, POST /__fail {"path":"activities"|"token","count":1,"status":500}
//            GET /__keys -> {fetches}: how many times the key set was read
//            POST /__sign {"claims":{...},"wrongKey":true} -> {token}: a Bot Framework JWT for this fake's serviceUrl
//            POST /__send {"url":"<messaging endpoint>","activity":{...},"claims":{...}} -> {status, body}:
//            the activity (serviceUrl filled in) posted with a signed token, as the Bot Connector posts it
import { createSign, generateKeyPairSync } from "node:crypto";
import http from "node:http";

const port = Number(process.argv[2] || process.env.MSTEAMS_PORT || 18695);
const APP_ID = process.env.MSTEAMS_APP_ID || "00000000-0000-4000-8000-00000000a11d";
const APP_PASSWORD = process.env.MSTEAMS_APP_PASSWORD || "fake-msteams-app-password";
const KID = "fake-msteams-key";
const ORIGIN = `http://127.0.0.1:${port}`;
const SERVICE_URL = `${ORIGIN}/`;
const TOKEN_LIFETIME_S = 3600;

const signingKey = generateKeyPairSync("rsa", { modulusLength: 2048 });
const strangerKey = generateKeyPairSync("rsa", { modulusLength: 2048 });
const publicJwk = signingKey.publicKey.export({ format: "jwk" });

let seq = 0;
let activitySeq = 0;
let tokenSeq = 0;
const calls = [];
const failures = new Map();
const issued = new Set();
let keyFetches = 0;

const b64url = (value) => Buffer.from(value).toString("base64url");

/** A JWT as the Bot Connector signs its requests to a bot (RS256, 1 h). */
function signToken(overrides = {}, wrongKey = false) {
  const now = Math.floor(Date.now() / 1000);
  const claims = {
    iss: "https://api.botframework.com",
    aud: APP_ID,
    serviceurl: SERVICE_URL,
    nbf: now - 5,
    exp: now + 3600,
    ...overrides,
  };
  const head = b64url(JSON.stringify({ alg: "RS256", kid: KID, typ: "JWT" }));
  const body = b64url(JSON.stringify(claims));
  const signer = createSign("RSA-SHA256");
  signer.update(`${head}.${body}`);
  return `${head}.${body}.${signer.sign((wrongKey ? strangerKey : signingKey).privateKey).toString("base64url")}`;
}

function failure(kind) {
  const list = failures.get(kind);
  if (!list?.length) return null;
  const next = list[0];
  if (--next.count <= 0) list.shift();
  return next;
}

function send(res, status, body) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

async function handle(req, res, raw) {
  const url = new URL(req.url, ORIGIN);
  const text = raw.toString("utf8");
  const json = () => (text ? JSON.parse(text) : {});
  if (url.pathname === "/__calls")
    return send(res, 200, { calls: calls.filter((c) => c.seq > Number(url.searchParams.get("since") || 0)) });
  if (url.pathname === "/__reset") {
    calls.length = 0;
    failures.clear();
    keyFetches = 0;
    return send(res, 200, { ok: true });
  }
  if (url.pathname === "/__fail") {
    const f = json();
    const list = failures.get(f.path) ?? [];
    list.push({ count: f.count ?? 1, status: f.status ?? 500 });
    failures.set(f.path, list);
    return send(res, 200, { ok: true });
  }
  if (url.pathname === "/__sign") {
    const f = json();
    return send(res, 200, { token: signToken(f.claims, f.wrongKey), serviceUrl: SERVICE_URL, appId: APP_ID });
  }
  if (url.pathname === "/__send") {
    const f = json();
    const activity = { serviceUrl: SERVICE_URL, channelId: "msteams", ...f.activity };
    try {
      const answer = await fetch(f.url, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${signToken(f.claims, f.wrongKey)}` },
        body: JSON.stringify(activity),
      });
      return send(res, 200, { status: answer.status, body: await answer.text() });
    } catch (error) {
      return send(res, 200, { status: 0, error: `cannot reach ${f.url} (${error.cause?.code ?? error.message})` });
    }
  }
  if (req.method === "GET" && url.pathname.endsWith("/.well-known/openidconfiguration"))
    return send(res, 200, { issuer: "https://api.botframework.com", jwks_uri: `${ORIGIN}/keys` });
  if (url.pathname === "/__keys") return send(res, 200, { fetches: keyFetches });
  if (req.method === "GET" && url.pathname === "/keys") {
    keyFetches++;
    return send(res, 200, { keys: [{ ...publicJwk, kid: KID, use: "sig", endorsements: ["msteams"] }] });
  }

  const rec = { seq: ++seq, t: Date.now(), httpMethod: req.method, path: url.pathname };
  calls.push(rec);
  if (req.method === "POST" && url.pathname.endsWith("/oauth2/v2.0/token")) {
    const form = Object.fromEntries(new URLSearchParams(text));
    rec.kind = "token";
    rec.body = { grant_type: form.grant_type, client_id: form.client_id, scope: form.scope };
    const failed = failure("token");
    if (failed) return answer(res, rec, failed.status, { error: "temporarily_unavailable" });
    if (form.client_id !== APP_ID || form.client_secret !== APP_PASSWORD)
      return answer(res, rec, 401, { error: "invalid_client" });
    const token = `fake-bf-token-${++tokenSeq}`;
    issued.add(token);
    return answer(res, rec, 200, { token_type: "Bearer", expires_in: TOKEN_LIFETIME_S, access_token: token });
  }
  const activities = /^\/v3\/conversations\/([^/]+)\/activities(?:\/([^/]+))?$/.exec(url.pathname);
  if (req.method === "POST" && activities) {
    rec.kind = "activity";
    rec.conversationId = decodeURIComponent(activities[1]);
    rec.body = json();
    const bearer = String(req.headers.authorization || "").replace(/^Bearer /, "");
    if (!issued.has(bearer)) return answer(res, rec, 401, { error: { code: "Unauthorized" } });
    const failed = failure("activities");
    if (failed) return answer(res, rec, failed.status, { error: { code: "ServiceError" } });
    return answer(res, rec, 201, { id: `1700000000${String(++activitySeq).padStart(3, "0")}` });
  }
  return answer(res, rec, 404, { error: { code: "NotFound" } });
}

function answer(res, rec, status, body) {
  rec.status = status;
  process.stderr.write(`[msteams] #${rec.seq} ${rec.httpMethod} ${rec.path} -> ${status}\n`);
  send(res, status, body);
}

http
  .createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () =>
      handle(req, res, Buffer.concat(chunks)).catch((error) => send(res, 500, { error: String(error) })),
    );
  })
  .listen(port, "127.0.0.1", () => process.stderr.write(`[msteams] fake Bot Connector on ${SERVICE_URL}\n`));
