// The bound on gateway sockets that have not authenticated, in the real runtime (`wrangler dev`,
// the client address as workerd hands it over): past the bound an upgrade is answered 429 with a
// JSON error and Retry-After before any WebSocket exists; a socket that authenticates or closes
// frees its place. The vitest pool test (test/workerd/gateway/gateway-preauth.test.ts) covers the tenant-wide
// bound over many addresses and that no hub object is made.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import WebSocket from "ws";
import { killAllServersNow, startServer } from "../../bench/lib/server.mjs";
import { connectFrame } from "./gateway-rpc.mjs";

process.once("exit", killAllServersNow);

const PER_ADDRESS = 3;
let server;
before(async () => {
  server = await startServer({
    cwd: new URL("../..", import.meta.url).pathname,
    vars: { GATEWAY_PREAUTH_SOCKETS: "10", GATEWAY_PREAUTH_SOCKETS_PER_ADDRESS: String(PER_ADDRESS) },
  });
});
after(async () => {
  await server?.stop();
});

/** Opens a socket: `{ ws, challenge }` once its challenge arrived, or `{ refused: { status, headers, body } }`. */
function open(headers = {}) {
  const ws = new WebSocket(server.baseUrl.replace(/^http/, "ws"), { headers });
  return new Promise((resolve, reject) => {
    ws.on("unexpected-response", (_req, res) => {
      let body = "";
      res.on("data", (chunk) => (body += chunk));
      res.on("end", () =>
        resolve({ refused: { status: res.statusCode, headers: res.headers, body: JSON.parse(body) } }),
      );
    });
    ws.on("message", (data) => resolve({ ws, challenge: JSON.parse(String(data)) }));
    ws.on("error", (error) => (error.message.includes("Unexpected server response") ? undefined : reject(error)));
  });
}

function connect(ws) {
  return new Promise((resolve) => {
    ws.on("message", (data) => {
      const frame = JSON.parse(String(data));
      if (frame.id === "c1") resolve(frame);
    });
    ws.send(connectFrame("dev-operator-token"));
  });
}

test("sockets waiting to authenticate are bounded per address; past it 429 before the upgrade", async () => {
  const waiting = [];
  for (let i = 0; i < PER_ADDRESS; i++) {
    const opened = await open();
    assert.equal(opened.challenge?.event, "connect.challenge", `socket ${i}`);
    waiting.push(opened.ws);
  }
  const refused = await open();
  assert.equal(refused.refused?.status, 429);
  assert.equal(refused.refused.headers["retry-after"], "15");
  assert.match(refused.refused.headers["content-type"], /application\/json/);
  assert.deepEqual(refused.refused.body, {
    ok: false,
    error: {
      type: "rate_limited",
      message: `too many gateway sockets waiting to authenticate from this address (${PER_ADDRESS}); retry later`,
    },
  });
  // A forwarded-for header does not make another client: workerd names the address itself.
  const spoofed = await open({ "x-forwarded-for": "198.51.100.77" });
  assert.equal(spoofed.refused?.status, 429, "X-Forwarded-For must not buy another budget");

  // A socket that authenticates frees its place; so does one that closes.
  const hello = await connect(waiting[0]);
  assert.equal(hello.ok, true);
  const next = await open();
  assert.equal(next.challenge?.event, "connect.challenge");
  waiting.push(next.ws);
  waiting[1].close();
  let reopened;
  for (let attempt = 0; attempt < 40 && !reopened?.ws; attempt++) {
    reopened = await open();
    if (!reopened.ws) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.ok(reopened?.ws, "a closed socket's place is free again");
  for (const ws of [...waiting, reopened.ws]) ws.close();
});
