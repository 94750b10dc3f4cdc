// The hub split in the real runtime (`wrangler dev`, a real workerd, GATEWAY_HUB_SOCKETS=2): a
// tenant's gateway sockets spread over its tenant object and hub objects (two sockets each),
// every event reaches every connection that should have it, in the same order everywhere, with
// each connection's `seq` gap-free; then the hubs are left idle until the runtime has evicted
// them (their sockets stay open on the Hibernation API) and nothing is lost after the wake-up.
// The vitest pool never hibernates an object, so only this proves the second half.
import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { killAllServersNow, startServer } from "../../bench/lib/server.mjs";
import { connectGateway } from "./gateway-rpc.mjs";
import { createTenantToken, waitFor } from "./http-json.mjs";

const HUB_SOCKETS = 2;
const TENANT = "hubs-e2e";
const FOLLOWED = "agent:main:followed";
const OTHER = "agent:main:other";
/** Long enough for workerd to evict an idle object whose only I/O is hibernatable sockets. */
const IDLE_MS = 25_000;

process.once("exit", killAllServersNow);

let server;
let token;
/** [role, connection] in connection order: sockets 1–2 in the tenant object, then two per hub. */
const connections = [];

before(async () => {
  server = await startServer({
    cwd: new URL("../..", import.meta.url).pathname,
    vars: { GATEWAY_HUB_SOCKETS: String(HUB_SOCKETS) },
    // The hubs' start lines (console.log) tell an instance evicted while idle from one kept.
    logLevel: "log",
  });
  token = await createTenantToken(server.baseUrl, TENANT);
});
after(async () => {
  for (const [, connection] of connections) connection.close();
  await server?.stop();
});

const connect = () => connectGateway(`${server.baseUrl.replace(/^http/, "ws")}/t/${TENANT}`, token);
const ofRole = (role) => connections.filter(([r]) => r === role).map(([, c]) => c);

/** What an event says, without what differs per connection (seq) or per delivery (timestamps). */
function signature({ event, payload }) {
  const key = payload.sessionKey ?? "";
  if (event === "session.message") return `${event} ${key} #${payload.messageSeq}`;
  if (event === "sessions.changed") return `${event} ${key} ${payload.reason ?? `phase:${payload.phase}`}`;
  if (event === "chat") return `${event} ${key} ${payload.runId} ${payload.state}`;
  if (event === "agent") return `${event} ${payload.runId} ${payload.stream} ${payload.data?.phase ?? ""}`;
  return event;
}
const signatures = (connection) => connection.events.filter((e) => e.event !== "tick").map(signature);

function assertSeqsGapFree(connection, label) {
  const seqs = connection.events.map((e) => e.seq);
  assert.deepEqual(
    seqs,
    seqs.map((_, i) => i + 1),
    `${label}: seqs ${seqs.join(",")}`,
  );
}

/** Three turns and two injects on FOLLOWED, a label, and a turn on OTHER; waits until all arrived. */
async function driveEvents(driver, round) {
  const finals = [];
  for (let i = 0; i < 3; i++) {
    const runId = `${round}-run-${i}`;
    const sent = await driver.call("chat.send", {
      sessionKey: FOLLOWED,
      message: `${round} ${i}`,
      idempotencyKey: runId,
    });
    assert.equal(sent.ok, true, JSON.stringify(sent.error));
    finals.push(runId);
    const injected = await driver.call("chat.inject", { sessionKey: FOLLOWED, message: `${round} note ${i}` });
    assert.equal(injected.ok, true, JSON.stringify(injected.error));
  }
  assert.equal((await driver.call("sessions.patch", { key: FOLLOWED, label: `label ${round}` })).ok, true);
  const other = `${round}-other`;
  assert.equal((await driver.call("chat.send", { sessionKey: OTHER, message: round, idempotencyKey: other })).ok, true);
  finals.push(other);
  const ended = (connection) =>
    finals.every((runId) =>
      connection.events.some((e) => e.event === "chat" && e.payload.runId === runId && e.payload.state === "final"),
    );
  await waitFor(
    `every connection has ${round}'s run events`,
    async () => ({
      done: connections.every(([, c]) => ended(c)),
      waiting: connections.filter(([, c]) => !ended(c)).map(([role]) => role),
    }),
    20_000,
  );
  // Give stragglers (a last session.message or sessions.changed) a moment, then compare.
  await new Promise((resolve) => setTimeout(resolve, 500));
}

function assertSameEverywhere(label) {
  for (const role of ["watcher", "follower", "plain"]) {
    const [first, ...rest] = ofRole(role).map(signatures);
    for (const [i, other] of rest.entries())
      assert.deepEqual(other, first, `${label}: ${role} ${i + 2} differs from the first`);
  }
  for (const [role, connection] of connections) assertSeqsGapFree(connection, `${label}: ${role}`);
  // What each role receives, as with one object: followers only FOLLOWED's messages, plain readers no messages.
  const [follower] = ofRole("follower");
  const messageKeys = new Set(
    follower.events.filter((e) => e.event === "session.message").map((e) => e.payload.sessionKey),
  );
  assert.deepEqual([...messageKeys], [FOLLOWED], label);
  const [plain] = ofRole("plain");
  assert.equal(plain.events.filter((e) => ["session.message", "sessions.changed"].includes(e.event)).length, 0, label);
  const [watcher] = ofRole("watcher");
  assert.ok(
    watcher.events.some((e) => e.event === "session.message" && e.payload.sessionKey === OTHER),
    label,
  );
}

test("sockets past the tenant object's share go to hub objects; every connection gets its events in one order, seq gap-free", async () => {
  const roles = ["watcher", "follower", "plain", "watcher", "follower", "plain", "watcher"];
  for (const role of roles) {
    const connection = await connect();
    if (role === "watcher") assert.equal((await connection.call("sessions.subscribe", {})).ok, true);
    if (role === "follower")
      assert.equal((await connection.call("sessions.messages.subscribe", { key: FOLLOWED })).ok, true);
    connections.push([role, connection]);
  }
  // Seven sockets, two per object: the tenant object and three hub objects (each with its own storage).
  const hubDir = join(server.persistDir, "v3", "do", "openclaw-sessions-GatewayHubObject");
  const hubFiles = (await readdir(hubDir)).filter((name) => /^[0-9a-f]{64}\.sqlite$/.test(name));
  assert.equal(hubFiles.length, 3, `hub objects: ${hubFiles.join(", ")}`);

  await driveEvents(ofRole("watcher")[0], "first");
  assertSameEverywhere("first round");
});

test("a hub evicted while idle keeps every subscriber: events after the wake-up continue each seq without a gap", async () => {
  const hubStarts = () => server.logLines().filter((line) => line.includes('"event":"gateway.hub_started"')).length;
  const startedBefore = hubStarts();
  await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
  // The eighth socket goes to the fourth object's hub (its second seat): an instance evicted while
  // idle starts again to take it (its uptime spans wake-ups, so the start's log line tells).
  const probe = await connect();
  probe.close();
  await waitFor(
    "a hub instance started again after the idle time (it was evicted while idle)",
    async () => ({ done: hubStarts() > startedBefore, starts: hubStarts() - startedBefore }),
    10_000,
  );
  console.log(`# after ${IDLE_MS} ms idle, hub instances started again: ${hubStarts() - startedBefore}`);

  const before = new Map(connections.map(([, c]) => [c, c.events.length]));
  // Driven from a socket in a hub, this time.
  await driveEvents(ofRole("plain")[1], "second");
  for (const [role, connection] of connections) {
    assert.ok(connection.events.length > before.get(connection), `${role} received nothing after the idle time`);
  }
  assertSameEverywhere("after the idle time");
});
