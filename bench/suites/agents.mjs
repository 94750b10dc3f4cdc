// Agents suite: sessions_send (server-side wait until ok; a full ping-pong + announce flow) and
// sessions_spawn (spawn → announce latency; 100 spawns in parallel from one requester), all with
// the built-in echo runner, in a tenant of their own.
import { performance } from "node:perf_hooks";
import { benchTenant } from "../lib/bench-tenant.mjs";
import { GatewayConn, gatewayUrl } from "../lib/gateway.mjs";
import { runConcurrent, summarize } from "../lib/measure.mjs";

export const description =
  "agents: sessions_send until ok, a 5-turn ping-pong flow to its announce, spawn → announce, 100 parallel spawns";

const TENANT = `bench-agents-${Date.now().toString(36)}`;
const WAIT_MS = 60_000;

export async function run(ctx) {
  const { baseUrl, log, signal } = ctx;
  const n = (count) => Math.max(2, Math.round(count * (ctx.quick ? 0.1 : 1)));
  const { client, token } = await benchTenant(baseUrl, signal, TENANT);
  const configure = (extra) =>
    client.request("PUT", "/v1/config", {
      body: {
        gateway: { tools: { allow: ["sessions_send", "sessions_spawn"] } },
        tools: { sessions: { visibility: "agent" } },
        rateLimit: { toolsPerMinute: 1_000_000 },
        agents: { defaults: { subagents: { maxChildrenPerAgent: 1000, archiveAfterMinutes: 0 } } },
        ...extra,
      },
    });
  const tool = async (tool, args) =>
    JSON.parse((await client.post("/tools/invoke", { tool, args, sessionKey: "main" })).text).result.details;
  const append = (key, body) =>
    client.post(
      `/v1/sessions/${encodeURIComponent(key)}/messages`,
      { role: "user", content: "seed", ...body },
      { expect: 201 },
    );
  const rows = [];
  await append("main", {});

  // 1. sessions_send with a 30 s server-side wait, no ping-pong (so turns do not overlap).
  await configure({ session: { agentToAgent: { maxPingPongTurns: 0 } } });
  await append("agent:main:send-target", {});
  const sends = n(100);
  log(`sessions_send timeoutSeconds 30 x${sends} sequential`);
  const sendLatency = [];
  let sendErrors = 0;
  for (let i = 0; i < sends; i++) {
    signal?.throwIfAborted();
    const t0 = performance.now();
    const result = await tool("sessions_send", {
      sessionKey: "agent:main:send-target",
      message: `ping ${i}`,
      timeoutSeconds: 30,
    });
    if (result.status === "ok" && result.reply === `ECHO: ping ${i}`) sendLatency.push(performance.now() - t0);
    else sendErrors++;
  }
  const send = summarize(sendLatency);
  rows.push(
    {
      name: "sessions_send until ok p50",
      value: send.p50,
      unit: "ms",
      note: `n=${sendLatency.length}, echo runner`,
      errors: sendErrors,
    },
    { name: "sessions_send until ok p99", value: send.p99, unit: "ms", note: `max ${send.max.toFixed(1)} ms` },
  );

  // 2. A full flow: primary + 5 ping-pong turns + announce delivered (to the log) — end to end.
  await configure({ session: { agentToAgent: { maxPingPongTurns: 5 } } });
  const flows = n(10);
  log(`full flow (5 turns + announce) x${flows} sequential`);
  const flowLatency = [];
  let flowErrors = 0;
  for (let i = 0; i < flows; i++) {
    const key = `agent:main:flow-${i}`;
    await append(key, { deliveryContext: { channel: "slack", to: `C${i}` } });
    const t0 = performance.now();
    const result = await tool("sessions_send", { sessionKey: key, message: `flow ${i}`, timeoutSeconds: 0 });
    if (result.status !== "accepted") {
      flowErrors++;
      continue;
    }
    const delivered = await pollUntil(
      async () => {
        const { deliveries } = JSON.parse(
          (await client.get(`/v1/sessions/${encodeURIComponent(key)}/deliveries`)).text,
        );
        return deliveries[0]?.status === "delivered";
      },
      WAIT_MS,
      signal,
    );
    if (delivered) flowLatency.push(performance.now() - t0);
    else flowErrors++;
  }
  const flow = summarize(flowLatency);
  rows.push(
    {
      name: "flow 5 turns + announce p50",
      value: flow.p50,
      unit: "ms",
      note: `n=${flowLatency.length}, 12 runs per flow, until the announce is delivered`,
      errors: flowErrors,
    },
    { name: "flow 5 turns + announce p99", value: flow.p99, unit: "ms" },
  );

  // 3. spawn → announce: the requester's session.message carrying the child's completion event.
  await configure({});
  const conn = await GatewayConn.open(`${gatewayUrl(baseUrl)}t/${TENANT}`, { token, signal });
  const announced = new Map(); // childKey → arrival time
  conn.onEvent((frame) => {
    const message = frame.event === "session.message" ? frame.payload?.message : undefined;
    if (message?.provenance?.sourceTool === "sessions_spawn" && message.role === "user")
      announced.set(message.provenance.sourceSessionKey, performance.now());
  });
  const sub = await conn.request("sessions.messages.subscribe", { key: "main" });
  if (!sub.ok) throw new Error(`subscribe failed: ${JSON.stringify(sub.error)}`);
  const spawns = n(50);
  log(`spawn → announce x${spawns} sequential`);
  const spawnLatency = [];
  let spawnErrors = 0;
  for (let i = 0; i < spawns; i++) {
    const t0 = performance.now();
    const result = await tool("sessions_spawn", { task: `task ${i}` });
    if (result.status !== "accepted") {
      spawnErrors++;
      continue;
    }
    const ok = await pollUntil(async () => announced.has(result.childSessionKey), WAIT_MS, signal, 1);
    if (ok) spawnLatency.push(announced.get(result.childSessionKey) - t0);
    else spawnErrors++;
  }
  const spawn = summarize(spawnLatency);
  rows.push(
    {
      name: "spawn → announce p50",
      value: spawn.p50,
      unit: "ms",
      note: `n=${spawnLatency.length}, echo child`,
      errors: spawnErrors,
    },
    { name: "spawn → announce p99", value: spawn.p99, unit: "ms" },
  );

  // 4. 100 spawns in parallel from one requester (fan-out limit raised), until every announce arrived.
  const parallel = ctx.quick ? 20 : 100;
  log(`${parallel} spawns in parallel`);
  const keys = [];
  const t0 = performance.now();
  const burst = await runConcurrent({
    signal,
    concurrency: parallel,
    total: parallel,
    task: async (i) => {
      const result = await tool("sessions_spawn", { task: `parallel ${i}` });
      if (result.status !== "accepted") throw new Error(`spawn refused: ${JSON.stringify(result)}`);
      keys.push(result.childSessionKey);
    },
  });
  const all = await pollUntil(async () => keys.every((k) => announced.has(k)), WAIT_MS * 2, signal);
  const totalMs = performance.now() - t0;
  const missing = keys.filter((k) => !announced.has(k)).length;
  rows.push(
    {
      name: `${parallel} parallel spawns: all accepted`,
      value: burst.seconds * 1000,
      unit: "ms",
      note: `${burst.count} accepted`,
      errors: burst.errors,
    },
    {
      name: `${parallel} parallel spawns: all announced`,
      value: totalMs,
      unit: "ms",
      note: all ? "every announce arrived" : `${missing} announces missing`,
      errors: missing,
    },
    {
      name: "parallel spawn throughput",
      value: (keys.length / totalMs) * 1000,
      unit: "spawns/s",
      note: "spawn → child run → announce, end to end",
    },
  );
  await conn.close();
  return rows;
}

async function pollUntil(check, timeoutMs, signal, intervalMs = 5) {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    signal?.throwIfAborted();
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  return false;
}
