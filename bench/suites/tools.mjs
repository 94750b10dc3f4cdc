// Tools suite: the tool loop's cost. A turn whose model calls sessions_list once (two model
// calls and one tool call) beside a plain turn (one model call), both on the scripted mock model
// (test/peers/tool-mock-model.mjs) through the openai runner, in a tenant of its own.
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { startToolMockModel } from "../../test/peers/tool-mock-model.mjs";
import { benchTenant } from "../lib/bench-tenant.mjs";
import { GatewayConn, gatewayUrl } from "../lib/gateway.mjs";
import { summarize } from "../lib/measure.mjs";

export const description = "tools: chat.send → chat final, a turn with one sessions_list call beside a plain turn";

const TENANT = `bench-tools-${Date.now().toString(36)}`;
const TURN_TIMEOUT_MS = 30_000;
const WARMUPS = 3;

export async function run(ctx) {
  const { baseUrl, log, signal } = ctx;
  const reps = Math.max(5, Math.round(100 * (ctx.quick ? 0.1 : 1)));
  const mock = await startToolMockModel();
  const conns = [];
  try {
    const { client, token } = await benchTenant(baseUrl, signal, TENANT, ["operator.admin"]);
    await client.request("PUT", "/v1/config", {
      body: {
        agents: { list: [{ id: "main", default: true, runner: { type: "openai", baseUrl: mock.url, model: "mock" } }] },
      },
    });
    const url = new URL(gatewayUrl(baseUrl));
    url.pathname = `/t/${TENANT}`;
    const conn = await GatewayConn.open(url.href, { token, signal });
    conns.push(conn);
    const turn = async (sessionKey, message) => {
      const runId = randomUUID();
      const final = conn.waitForEvent(
        (f) =>
          f.event === "chat" && f.payload?.runId === runId && ["final", "error", "aborted"].includes(f.payload.state),
        TURN_TIMEOUT_MS,
      );
      const t0 = performance.now();
      const res = await conn.request("chat.send", { sessionKey, message, idempotencyKey: runId }, TURN_TIMEOUT_MS);
      if (!res.ok) throw new Error(`chat.send refused: ${JSON.stringify(res.error).slice(0, 200)}`);
      const frame = await final;
      if (frame.payload.state !== "final") throw new Error(`run ended ${frame.payload.state}`);
      return performance.now() - t0;
    };
    const rows = [];
    for (const [name, message] of [
      ["plain turn (one model call)", "hello"],
      ["turn with one sessions_list call", 'CALL sessions_list {"limit":1}'],
    ]) {
      for (let i = 0; i < WARMUPS; i++) await turn(`agent:main:warm-${i}`, message);
      const latencies = [];
      for (let i = 0; i < reps; i++) latencies.push(await turn(`agent:main:${name.length}-${i}`, message));
      const stats = summarize(latencies);
      log(`${name}: p50 ${stats.p50.toFixed(1)} ms, p99 ${stats.p99.toFixed(1)} ms (n=${reps})`);
      rows.push({
        name: `${name} p50`,
        value: stats.p50,
        unit: "ms",
        note: "chat.send → chat final, new session each",
      });
      rows.push({ name: `${name} p99`, value: stats.p99, unit: "ms", note: `max ${stats.max.toFixed(1)} ms` });
    }
    return rows;
  } finally {
    for (const conn of conns) conn.terminate();
    await mock.close();
  }
}
