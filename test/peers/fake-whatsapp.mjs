// Fake WhatsApp Cloud API (Meta's Graph API, loopback only) for the WhatsApp channel's tests and
// `npm run fake -- whatsapp`. Point the service at it with channels.whatsapp.apiRoot =
// "http://127.0.0.1:<port>/v23.0".
//
//   node fake-whatsapp.mjs [port]     (default 18697; env WA_TOKEN = the only accepted access token)
//
// Graph API: POST /<version>/<phoneNumberId>/messages (Bearer token, JSON)
//   text  -> 200 {"messaging_product":"whatsapp","contacts":[{"input":to,"wa_id":to}],"messages":[{"id":"wamid.…"}]}
//   read  -> 200 {"success":true}   ({"status":"read","message_id":…})
//   another token -> 401 {"error":{"message":"Invalid OAuth access token…","type":"OAuthException","code":190}}
// Control endpoints (for tests, not part of the Graph API):
//   GET  /__calls?since=<seq>   -> {"calls":[{seq,t,method,path,authorization,body}]}   (method: "text" | "read")
//   POST /__reset               -> clears the call log and pending failures
//   POST /__fail {"method":"text","count":1,"status":500,"code":131047,"message":"…"}
//                               -> the next <count> calls of <method> fail with that Graph error
//   POST /__slow {"method":"text","ms":3000} -> the next call of <method> answers after <ms>

import http from "node:http";

const port = Number(process.argv[2] || process.env.WA_PORT || 18697);
const TOKEN = process.env.WA_TOKEN || "EAAG-fake-whatsapp-access-token";
let seq = 0;
let wamid = 1000;
const calls = [];
const failures = new Map();
const slow = new Map();

function send(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", async () => {
    const raw = Buffer.concat(chunks).toString("utf8");
    const url = new URL(req.url, "http://x");
    if (url.pathname === "/__calls")
      return send(res, 200, { calls: calls.filter((c) => c.seq > Number(url.searchParams.get("since") || 0)) });
    if (url.pathname === "/__reset") {
      calls.length = 0;
      failures.clear();
      slow.clear();
      return send(res, 200, { ok: true });
    }
    if (url.pathname === "/__fail") {
      const f = JSON.parse(raw || "{}");
      const list = failures.get(f.method) ?? [];
      list.push({
        count: f.count ?? 1,
        status: f.status ?? 400,
        code: f.code ?? 100,
        message: f.message ?? "Invalid parameter",
      });
      failures.set(f.method, list);
      return send(res, 200, { ok: true });
    }
    if (url.pathname === "/__slow") {
      const f = JSON.parse(raw || "{}");
      slow.set(f.method, f.ms ?? 1000);
      return send(res, 200, { ok: true });
    }
    const match = /^(?:\/v\d+\.\d+)?\/([^/]+)\/messages$/.exec(url.pathname);
    let body = {};
    try {
      body = raw ? JSON.parse(raw) : {};
    } catch {
      body = { __raw: raw.slice(0, 2000) };
    }
    const method = body.status === "read" ? "read" : (body.type ?? null);
    const rec = {
      seq: ++seq,
      t: Date.now(),
      method,
      phoneNumberId: match?.[1] ?? null,
      path: url.pathname,
      authorization: String(req.headers.authorization ?? "").replace(TOKEN, "<TOKEN>"),
      body,
    };
    let status = 200;
    let reply;
    if (!match || req.method !== "POST") {
      status = 404;
      reply = { error: { message: "Unsupported request", type: "GraphMethodException", code: 100 } };
    } else if (req.headers.authorization !== `Bearer ${TOKEN}`) {
      status = 401;
      reply = {
        error: { message: "Invalid OAuth access token - Cannot parse access token", type: "OAuthException", code: 190 },
      };
    } else {
      const pending = failures.get(method);
      if (pending?.length) {
        const f = pending[0];
        if (--f.count <= 0) pending.shift();
        status = f.status;
        reply = { error: { message: f.message, type: "OAuthException", code: f.code, fbtrace_id: "AfakeTrace" } };
      } else if (method === "read") {
        reply = { success: true };
      } else {
        reply = {
          messaging_product: "whatsapp",
          contacts: [{ input: body.to, wa_id: body.to }],
          messages: [{ id: `wamid.FAKE${++wamid}` }],
        };
      }
    }
    const delay = slow.get(method);
    if (delay) {
      slow.delete(method);
      await new Promise((r) => setTimeout(r, delay));
    }
    rec.status = status;
    rec.reply = reply;
    calls.push(rec);
    process.stderr.write(`[wa] #${rec.seq} ${method ?? url.pathname} -> ${status}\n`);
    send(res, status, reply);
  });
});
server.listen(port, "127.0.0.1", () =>
  process.stderr.write(`[wa] fake WhatsApp Cloud API on http://127.0.0.1:${port}/v23.0 token ${TOKEN}\n`),
);
