// Issue 44, finding 3, in the real runtime (`wrangler dev`): sockets that never authenticate,
// opened from five addresses past the tenant's whole unauthenticated budget and reopened as they
// are evicted, do not keep a real user out. Behind one trusted proxy (TRUSTED_PROXY_HOPS=1) each
// client's address is the X-Forwarded-For entry the proxy appended; the budget is the default
// (256 per tenant, 64 per address). The user's connect is answered and authenticates while the
// flood goes on; each flood address is still refused past its own 64.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import WebSocket from "ws";
import { killAllServersNow, startServer } from "../../bench/lib/server.mjs";
import { connectFrame } from "./gateway-rpc.mjs";

process.once("exit", killAllServersNow);

const FLOOD_ADDRESSES = ["198.51.100.1", "198.51.100.2", "198.51.100.3", "2001:db8:1:1::1", "2001:db8:2:2::1"];
let server;
before(async () => {
  server = await startServer({ cwd: new URL("../..", import.meta.url).pathname, vars: { TRUSTED_PROXY_HOPS: "1" } });
});
after(async () => {
  await server?.stop();
});

/**
 * Opens a socket as the proxy forwards it for `address`: `{ ws, closed }` once its challenge
 * arrived (`closed` resolves with the close code and reason), or `{ refused: status }`.
 */
function open(address) {
  const ws = new WebSocket(server.baseUrl.replace(/^http/, "ws"), { headers: { "x-forwarded-for": address } });
  const closed = new Promise((resolve) => ws.on("close", (code, reason) => resolve({ code, reason: String(reason) })));
  return new Promise((resolve, reject) => {
    ws.on("unexpected-response", (_req, res) => {
      res.resume();
      resolve({ refused: res.statusCode });
    });
    ws.once("message", (data) => resolve({ ws, closed, challenge: JSON.parse(String(data)) }));
    ws.on("error", (error) => (error.message.includes("Unexpected server response") ? undefined : reject(error)));
  });
}

test("a flood of unauthenticated sockets from five addresses keeps no user out", async () => {
  let flooding = true;
  const evictions = [];
  const refusals = [];
  const flood = [];
  /** One flood socket, reopened each time it is evicted, until the test ends. */
  async function hold(address) {
    while (flooding) {
      const opened = await open(address);
      if (opened.refused) {
        refusals.push(opened.refused);
        await new Promise((resolve) => setTimeout(resolve, 200));
        continue;
      }
      flood.push(opened.ws);
      const closed = await opened.closed;
      if (flooding) evictions.push(closed);
      // Reopened soon (the finding's flood reopened every 15 s), without spinning the machine.
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  // 80 sockets per address, 400 in all: past the tenant's 256 and past each address's 64.
  const holders = [];
  for (const address of FLOOD_ADDRESSES) for (let i = 0; i < 80; i++) holders.push(hold(address));
  // The flood has filled the budget once sockets are being evicted and addresses refused.
  for (let waited = 0; (evictions.length < 20 || refusals.length < 20) && waited < 60_000; waited += 100)
    await new Promise((resolve) => setTimeout(resolve, 100));
  assert.ok(evictions.length >= 20, `sockets evicted while the flood fills the budget: ${evictions.length}`);
  assert.ok(refusals.length >= 20, `flood addresses refused past their own bound: ${refusals.length}`);
  assert.ok(
    evictions.every((e) => e.code === 1008 && e.reason === "handshake timeout"),
    "an evicted socket closes as its handshake deadline closes it",
  );
  assert.ok(
    refusals.every((status) => status === 429),
    "the flood's only refusals are 429s",
  );

  // The real user, from its own address, while the flood goes on.
  const user = await open("203.0.113.50");
  assert.equal(user.challenge?.event, "connect.challenge", `the user's upgrade: ${JSON.stringify(user.refused)}`);
  const hello = await new Promise((resolve) => {
    user.ws.on("message", (data) => {
      const frame = JSON.parse(String(data));
      if (frame.id === "c1") resolve(frame);
    });
    user.ws.send(connectFrame("dev-operator-token"));
  });
  assert.equal(hello.ok, true, JSON.stringify(hello.error));
  assert.equal(hello.payload?.type, "hello-ok");

  flooding = false;
  for (const ws of flood) ws.terminate();
  user.ws.close();
  await Promise.all(holders);
  console.log(`flood: ${evictions.length} evictions, ${refusals.length} refusals (429), the user connected`);
});
