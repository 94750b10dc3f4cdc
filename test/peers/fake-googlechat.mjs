// Fake Google for a Chat app, on loopback (shapes from ../shared/peer/channels-2/SPEC.md §4 and its
// recordings, and Google's Chat API reference). One process plays what a Chat app meets:
//   node fake-googlechat.mjs [port]     (default 18698; GC_AUDIENCE = the project number it signs for)
// Certs:     GET /service_accounts/v1/metadata/x509/chat@system.gserviceaccount.com -> {kid: PEM}
//            (Cache-Control: public, max-age=3600); the key signs the events this fake sends
// Token:     POST /token (form: grant_type jwt-bearer, assertion signed by the service account below)
//            -> {access_token, expires_in, token_type}; a bad assertion -> 400 invalid_grant
// Chat API:  POST /v1/spaces/<id>/messages[?messageId=client-…] -> the message (409 ALREADY_EXISTS
//            when that client id exists); PATCH /v1/spaces/<id>/messages/<id>?updateMask=text -> the
//            message (404 NOT_FOUND when it does not exist); the Bearer must be a token /token issued
// Control:   GET /__calls?since=<seq> -> {calls:[{seq,t,kind,method,path,body,status}]} (kind: create | update | token | certs)
//            POST /__reset; POST /__fail {"kind":"create","count":1,"status":500}
//            GET /__messages -> {messages:[{name,text}]}: every message as it reads now (placeholders edited)
//            GET /__service-account -> the service account's JSON key (what channels.googlechat.serviceAccount takes)
//            POST /__sign {"claims":{...},"wrongKey":true} -> {token}: a Chat JWT (iss chat@system…, aud GC_AUDIENCE)
//            POST /__send {"url":"<endpoint>","event":{...},"claims":{...},"wrongKey":true,"noToken":true}
//              -> {status, body, headers}: the event POSTed with a signed Bearer token, as Google sends it
import { execFileSync } from "node:child_process";
import { createSign, createVerify, generateKeyPairSync } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";

const port = Number(process.argv[2] || process.env.GOOGLECHAT_PORT || 18698);
const AUDIENCE = process.env.GC_AUDIENCE || "123456789012";
const ORIGIN = `http://127.0.0.1:${port}`;
const CHAT_ISSUER = "chat@system.gserviceaccount.com";
const KID = "fake-chat-kid-1";
const TOKEN_LIFETIME_S = 3599;

/** Chat's signing key and its self-signed certificate (Google publishes certificates, not bare keys). */
function keyAndCertificate() {
  const dir = mkdtempSync(join(tmpdir(), "fake-googlechat-"));
  try {
    execFileSync(
      "openssl",
      ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", `/CN=${CHAT_ISSUER}`].concat([
        "-keyout",
        join(dir, "key.pem"),
        "-out",
        join(dir, "cert.pem"),
      ]),
      { stdio: "ignore" },
    );
    return { key: readFileSync(join(dir, "key.pem"), "utf8"), cert: readFileSync(join(dir, "cert.pem"), "utf8") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const chat = keyAndCertificate();
const strangerKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
const account = generateKeyPairSync("rsa", { modulusLength: 2048 });
const SERVICE_ACCOUNT = {
  type: "service_account",
  project_id: "fake-project",
  private_key_id: "fake-sa-kid-1",
  private_key: account.privateKey.export({ type: "pkcs8", format: "pem" }),
  client_email: "openclaw-chat@fake-project.iam.gserviceaccount.com",
  client_id: "100000000000000000001",
  token_uri: `${ORIGIN}/token`,
};

let seq = 0;
let tokenSeq = 0;
let messageSeq = 1000;
const calls = [];
const failures = new Map();
const issued = new Set();
/** Messages by resource name (`spaces/X/messages/Y`) with their text. */
const messages = new Map();

const b64url = (value) => Buffer.from(value).toString("base64url");

/** An RS256 JWT as Google signs a Chat app's requests (1 h). */
function signChatToken(overrides = {}, wrongKey = false) {
  const now = Math.floor(Date.now() / 1000);
  const claims = { iss: CHAT_ISSUER, aud: AUDIENCE, iat: now, exp: now + 3600, ...overrides };
  const head = b64url(JSON.stringify({ alg: "RS256", kid: KID, typ: "JWT" }));
  const body = b64url(JSON.stringify(claims));
  const signature = createSign("RSA-SHA256")
    .update(`${head}.${body}`)
    .sign(wrongKey ? strangerKey : chat.key);
  return `${head}.${body}.${signature.toString("base64url")}`;
}

/** Whether a token request's assertion is the service account's (signature, iss, aud, scope, exp). */
function assertionValid(assertion) {
  const [head, body, signature] = String(assertion ?? "").split(".");
  if (!head || !body || !signature) return false;
  const verified = createVerify("RSA-SHA256")
    .update(`${head}.${body}`)
    .verify(account.publicKey, Buffer.from(signature, "base64url"));
  if (!verified) return false;
  const claims = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
  return (
    claims.iss === SERVICE_ACCOUNT.client_email &&
    claims.aud === `${ORIGIN}/token` &&
    String(claims.scope).includes("https://www.googleapis.com/auth/chat.bot") &&
    claims.exp > Date.now() / 1000
  );
}

function failure(kind) {
  const list = failures.get(kind);
  if (!list?.length) return null;
  const next = list[0];
  if (--next.count <= 0) list.shift();
  return next;
}

const googleError = (code, status, message) => ({ error: { code, message, status } });

/** What Google answers a request of `kind` (not the control endpoints). */
function answer(kind, req, url, body) {
  const injected = failure(kind);
  if (injected)
    return [injected.status, googleError(injected.status, injected.message ?? "injected failure", "INTERNAL")];
  if (kind === "certs") return [200, { [KID]: chat.cert }, { "cache-control": "public, max-age=3600" }];
  if (kind === "token") {
    const form = new URLSearchParams(body);
    if (
      form.get("grant_type") !== "urn:ietf:params:oauth:grant-type:jwt-bearer" ||
      !assertionValid(form.get("assertion"))
    )
      return [400, { error: "invalid_grant", error_description: "Invalid JWT Signature." }];
    const token = `ya29.fake-${++tokenSeq}-${Math.random().toString(36).slice(2, 10)}`;
    issued.add(token);
    return [200, { access_token: token, expires_in: TOKEN_LIFETIME_S, token_type: "Bearer" }];
  }
  const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
  if (!bearer || !issued.has(bearer))
    return [401, googleError(401, "Request had invalid authentication credentials.", "UNAUTHENTICATED")];
  const payload = JSON.parse(body || "{}");
  if (kind === "create") {
    const space = /^\/v1\/(spaces\/[^/]+)\/messages$/.exec(url.pathname)[1];
    const clientId = url.searchParams.get("messageId");
    if (clientId && !/^client-[a-z0-9-]{1,56}$/.test(clientId))
      return [400, googleError(400, "Invalid message id", "INVALID_ARGUMENT")];
    const name = `${space}/messages/${clientId ?? `M${++messageSeq}`}`;
    if (messages.has(name)) return [409, googleError(409, "Message already exists", "ALREADY_EXISTS")];
    const message = { name, text: payload.text, createTime: new Date().toISOString() };
    messages.set(name, message);
    return [200, message];
  }
  // kind === "update"
  const name = /^\/v1\/(spaces\/[^/]+\/messages\/[^/]+)$/.exec(url.pathname)[1];
  if (url.searchParams.get("updateMask") !== "text")
    return [400, googleError(400, "updateMask must be text", "INVALID_ARGUMENT")];
  const message = messages.get(name);
  if (!message) return [404, googleError(404, "Message not found", "NOT_FOUND")];
  message.text = payload.text;
  return [200, message];
}

function kindOf(method, path) {
  if (method === "GET" && path.startsWith("/service_accounts/v1/metadata/x509/")) return "certs";
  if (method === "POST" && path === "/token") return "token";
  if (method === "POST" && /^\/v1\/spaces\/[^/]+\/messages$/.test(path)) return "create";
  if (method === "PATCH" && /^\/v1\/spaces\/[^/]+\/messages\/[^/]+$/.test(path)) return "update";
  return null;
}

function send(res, status, body, headers = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json; charset=UTF-8", ...headers });
  res.end(text);
}

/** Posts an event to the app's endpoint as Google does: JSON, with a signed Bearer token. */
async function deliver({ url, event, claims, wrongKey, noToken, raw, contentType }) {
  const headers = { "content-type": contentType ?? "application/json" };
  if (!noToken) headers.authorization = `Bearer ${signChatToken(claims, wrongKey)}`;
  try {
    const res = await fetch(url, { method: "POST", headers, body: raw ?? JSON.stringify(event) });
    return { status: res.status, body: await res.text(), headers: Object.fromEntries(res.headers) };
  } catch (error) {
    return { error: `cannot reach ${url}: ${error.cause?.code ?? error.message}` };
  }
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", async () => {
    const raw = Buffer.concat(chunks).toString("utf8");
    const url = new URL(req.url, ORIGIN);
    if (url.pathname === "/__calls")
      return send(res, 200, { calls: calls.filter((c) => c.seq > Number(url.searchParams.get("since") || 0)) });
    if (url.pathname === "/__reset") {
      calls.length = 0;
      failures.clear();
      return send(res, 200, { ok: true });
    }
    if (url.pathname === "/__fail") {
      const f = JSON.parse(raw || "{}");
      failures.set(f.kind, [
        ...(failures.get(f.kind) ?? []),
        { count: f.count ?? 1, status: f.status ?? 500, message: f.message },
      ]);
      return send(res, 200, { ok: true });
    }
    if (url.pathname === "/__service-account") return send(res, 200, SERVICE_ACCOUNT);
    if (url.pathname === "/__messages") return send(res, 200, { messages: [...messages.values()] });
    if (url.pathname === "/__sign") {
      const f = JSON.parse(raw || "{}");
      return send(res, 200, { token: signChatToken(f.claims, f.wrongKey) });
    }
    if (url.pathname === "/__send") return send(res, 200, await deliver(JSON.parse(raw || "{}")));
    const kind = kindOf(req.method, url.pathname);
    if (!kind) return send(res, 404, googleError(404, `fake: no route for ${req.method} ${url.pathname}`, "NOT_FOUND"));
    const [status, reply, headers] = answer(kind, req, url, raw);
    let body = raw;
    try {
      body = kind === "token" ? Object.fromEntries(new URLSearchParams(raw)) : raw ? JSON.parse(raw) : undefined;
    } catch {
      // kept as text
    }
    const call = {
      seq: ++seq,
      t: Date.now(),
      kind,
      method: req.method,
      path: `${url.pathname}${url.search}`,
      body,
      status,
    };
    calls.push(call);
    process.stderr.write(`[googlechat] #${call.seq} ${kind} ${call.path} -> ${status}\n`);
    send(res, status, reply, headers);
  });
});
server.listen(port, "127.0.0.1", () =>
  process.stderr.write(
    `[googlechat] fake Google (Chat API, token, certificates) on http://127.0.0.1:${port} audience ${AUDIENCE}\n`,
  ),
);
