// The gateway's browser-origin check in the real runtime (`wrangler dev`, a real workerd, the
// request as the network stack hands it over): a socket opened by a browser page from a foreign
// origin is refused at `connect` in OpenClaw's words and closed 1008; the service's own origin,
// an origin in `gateway.controlUi.allowedOrigins` and clients that send no Origin connect.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import WebSocket from "ws";
import { killAllServersNow, startServer } from "../../bench/lib/server.mjs";
import { connectFrame } from "./gateway-rpc.mjs";
import { httpJson } from "./http-json.mjs";

process.once("exit", killAllServersNow);

const OP = "Bearer dev-operator-token";
const NOT_ALLOWED =
  "origin not allowed (open the Control UI from the gateway host or allow it in gateway.controlUi.allowedOrigins)";

let server;
before(async () => {
  server = await startServer({ cwd: new URL("../..", import.meta.url).pathname });
});
after(async () => {
  await server?.stop();
});

/** Opens a socket (with `Origin` when given), sends `connect`; resolves with its answer and the close, if any. */
function connectWith(origin) {
  const url = server.baseUrl.replace(/^http/, "ws");
  const ws = new WebSocket(url, origin === undefined ? {} : { origin });
  return new Promise((resolve, reject) => {
    const result = { answer: null, close: null };
    const timer = setTimeout(() => reject(new Error(`no answer for origin ${origin}`)), 15_000);
    ws.on("error", reject);
    ws.on("message", (data) => {
      const frame = JSON.parse(String(data));
      if (frame.event === "connect.challenge") {
        ws.send(
          connectFrame("dev-operator-token", {
            id: "openclaw-control-ui",
            version: "1.0.0",
            platform: "web",
            mode: "ui",
          }),
        );
      } else if (frame.id === "c1") {
        result.answer = frame;
        // A refused socket is closed by the server; an accepted one by us, after a moment.
        if (frame.ok) setTimeout(() => ws.close(1000), 200);
      }
    });
    ws.on("close", (code, reason) => {
      clearTimeout(timer);
      result.close = { code, reason: String(reason) };
      resolve(result);
    });
  });
}

test("a foreign browser origin is refused at connect; own origin, allowed origins and no Origin connect", async () => {
  const put = await httpJson(server.baseUrl, "PUT", "/v1/config", {
    authorization: OP,
    body: { gateway: { controlUi: { allowedOrigins: ["https://console.example.com"] } } },
  });
  assert.equal(put.status, 200, put.text);

  const foreign = await connectWith("https://evil.example.net");
  assert.equal(foreign.answer.ok, false);
  assert.deepEqual(foreign.answer.error.details, {
    code: "CONTROL_UI_ORIGIN_NOT_ALLOWED",
    reason: "origin not allowed",
  });
  assert.equal(foreign.answer.error.code, "INVALID_REQUEST");
  assert.equal(foreign.answer.error.message, NOT_ALLOWED);
  assert.equal(foreign.close.code, 1008);
  assert.equal(foreign.close.reason, NOT_ALLOWED.slice(0, 120));

  const opaque = await connectWith("null");
  assert.equal(opaque.answer.error.details.reason, "origin missing or invalid");

  for (const origin of [server.baseUrl, "https://console.example.com", undefined]) {
    const accepted = await connectWith(origin);
    assert.equal(accepted.answer.ok, true, `${origin}: ${JSON.stringify(accepted.answer)}`);
    assert.equal(accepted.answer.payload.type, "hello-ok");
  }

  const reset = await httpJson(server.baseUrl, "PUT", "/v1/config", { authorization: OP, body: {} });
  assert.equal(reset.status, 200);
  const removed = await connectWith("https://console.example.com");
  assert.equal(removed.answer.ok, false, "an origin taken off the list is refused");
});
