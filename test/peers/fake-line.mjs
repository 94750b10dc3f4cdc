// Fake LINE Messaging API on loopback, for tests and `npm run fake -- line`.
//   node test/peers/fake-line.mjs [port]        (default 18695; 0 picks a free port, printed as "listening <port>")
// API (Authorization: Bearer <token>; only FAKE_LINE_TOKEN, default below, is accepted, else 401):
//   POST /v2/bot/message/reply {replyToken, messages}  each token works once (400 "Invalid reply token" after)
//   POST /v2/bot/message/push {to, messages}           X-Line-Retry-Key seen before -> 409 (as LINE)
//   POST /v2/bot/chat/loading/start {chatId}           202
//   GET  /v2/bot/info, /v2/bot/profile/<id>, /v2/bot/group/<id>/summary, /v2/bot/{group,room}/<id>/member/<uid>
//   at most 5 messages per call, at most 5000 characters each (400 otherwise, as LINE)
// Control: GET /__calls?since=<seq>, POST /__reset,
//   POST /__fail {"path":"/v2/bot/message/reply","count":1,"status":500}  (the next `count` calls answer `status`)
//   POST /__expire {"replyToken":"…"}                                     (that token answers 400 from now on)
import http from "node:http";

export const FAKE_LINE_TOKEN = process.env.FAKE_LINE_TOKEN || "line-fake-channel-access-token";
export const FAKE_LINE_BOT = { userId: "Ubot0000000000000000000000000000b", displayName: "FakeLineBot" };
const MAX_MESSAGES = 5;
const MAX_TEXT_CHARS = 5000;

/** Starts the fake; resolves with its port and a close function. */
export function startFakeLine(port = 18695) {
  let seq = 0;
  let calls = [];
  let failures = [];
  let usedTokens = new Set();
  let retryKeys = new Set();
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      const url = new URL(req.url, "http://fake");
      const raw = Buffer.concat(chunks).toString("utf8");
      let body = {};
      try {
        body = raw ? JSON.parse(raw) : {};
      } catch {
        body = { __raw: raw };
      }
      const answer = (status, json) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(json));
      };
      if (url.pathname === "/__calls")
        return answer(200, { calls: calls.filter((c) => c.seq > Number(url.searchParams.get("since") || 0)) });
      if (url.pathname === "/__reset") {
        calls = [];
        failures = [];
        usedTokens = new Set();
        retryKeys = new Set();
        return answer(200, { ok: true });
      }
      if (url.pathname === "/__fail") {
        failures.push({ path: body.path, count: body.count ?? 1, status: body.status ?? 500 });
        return answer(200, { ok: true });
      }
      if (url.pathname === "/__expire") {
        usedTokens.add(body.replyToken);
        return answer(200, { ok: true });
      }
      const call = {
        seq: ++seq,
        at: Date.now(),
        method: req.method,
        path: url.pathname,
        auth: req.headers.authorization ?? null,
        retryKey: req.headers["x-line-retry-key"] ?? null,
        body,
      };
      calls.push(call);
      const finish = (status, json) => {
        call.status = status;
        answer(status, json);
      };
      if (req.headers.authorization !== `Bearer ${FAKE_LINE_TOKEN}`)
        return finish(401, {
          message: "Authentication failed. Confirm that the access token in the authorization header is valid.",
        });
      const failure = failures.find((f) => f.count > 0 && (!f.path || f.path === url.pathname));
      if (failure) {
        failure.count--;
        return finish(failure.status, { message: "An error occurred in the fake" });
      }
      return route(req.method, url.pathname, body, call, finish);
    });
  });

  function route(method, path, body, call, finish) {
    if (method === "POST" && (path === "/v2/bot/message/reply" || path === "/v2/bot/message/push")) {
      const messages = Array.isArray(body.messages) ? body.messages : [];
      if (messages.length === 0 || messages.length > MAX_MESSAGES)
        return finish(400, { message: "The request body has 1 error(s)", details: [{ property: "messages" }] });
      if (messages.some((m) => typeof m.text !== "string" || m.text.length > MAX_TEXT_CHARS))
        return finish(400, { message: "The request body has 1 error(s)", details: [{ property: "messages.text" }] });
      if (path.endsWith("/reply")) {
        if (typeof body.replyToken !== "string" || usedTokens.has(body.replyToken))
          return finish(400, { message: "Invalid reply token" });
        usedTokens.add(body.replyToken);
        return finish(200, {
          sentMessages: messages.map((_, i) => ({ id: `${call.seq}${i}`, quoteToken: `qt-${call.seq}-${i}` })),
        });
      }
      if (call.retryKey && retryKeys.has(call.retryKey))
        return finish(409, { message: "The retry key is already accepted" });
      if (call.retryKey) retryKeys.add(call.retryKey);
      return finish(200, {
        sentMessages: messages.map((_, i) => ({ id: `${call.seq}${i}`, quoteToken: `qt-${call.seq}-${i}` })),
      });
    }
    if (method === "POST" && path === "/v2/bot/chat/loading/start") return finish(202, {});
    if (method === "GET" && path === "/v2/bot/info")
      return finish(200, { ...FAKE_LINE_BOT, basicId: "@fakebot", chatMode: "bot", markAsReadMode: "auto" });
    let match = /^\/v2\/bot\/profile\/([^/]+)$/.exec(path);
    if (method === "GET" && match) return finish(200, { userId: match[1], displayName: `User ${match[1].slice(-4)}` });
    match = /^\/v2\/bot\/group\/([^/]+)\/summary$/.exec(path);
    if (method === "GET" && match) return finish(200, { groupId: match[1], groupName: `Group ${match[1].slice(-4)}` });
    // A member's profile in a group or a room, as recorded (`Member <last 4>`).
    match = /^\/v2\/bot\/(?:group|room)\/([^/]+)\/member\/([^/]+)$/.exec(path);
    if (method === "GET" && match)
      return finish(200, { userId: match[2], displayName: `Member ${match[2].slice(-4)}` });
    return finish(404, { message: "Not found" });
  }

  return new Promise((resolve) => {
    server.listen(port, "127.0.0.1", () => {
      const actual = server.address().port;
      resolve({ port: actual, close: () => new Promise((done) => server.close(done)) });
    });
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { port } = await startFakeLine(Number(process.argv[2] ?? 18695));
  console.log(`listening ${port}`);
}
