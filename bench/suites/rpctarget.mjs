// What a call through an RpcTarget costs against a method of the Durable Object's class
// (docs/architecture.md, "Ports by role": why the tenant object's roles are not RpcTargets).
// bench/lib/rpc-target-worker.mjs in its own workerd: the worker makes N sequential calls to one
// object per request (each updating a Map: the RPC alone); modes alternate in rounds (order reversed
// every round, as in `versus`). Per mode: wall time and workerd CPU per call (median of rounds).
// It needs nothing from the service run.mjs starts (that one idles meanwhile).
import { performance } from "node:perf_hooks";
import { httpClient } from "../lib/http.mjs";
import { cpuSeconds, workerdPids } from "../lib/procs.mjs";
import { startWorkerServer } from "../lib/server.mjs";

export const description = "rpctarget: a call through an RpcTarget vs a direct Durable Object method";

const MODES = [
  { id: "direct", label: "stub.method()" },
  { id: "pipelined", label: "stub.role().method() (pipelined)" },
  { id: "getter", label: "stub.role.method() (getter)" },
  { id: "held", label: "role stub taken once, then role.method()" },
];

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export async function run(ctx) {
  const { log, signal, quick } = ctx;
  const cwd = ctx.repoRoot ?? process.cwd();
  const calls = quick ? 200 : 1000;
  const rounds = quick ? 3 : 7;
  const server = await startWorkerServer({
    cwd,
    worker: "rpc-target-worker.mjs",
    durableObjects: { TARGET: "Target" },
    log,
  });
  try {
    const workerd = await workerdPids(server.pid);
    const client = httpClient(server.baseUrl, { signal });
    const once = async (mode, n) => {
      const cpu0 = await cpuSeconds(workerd);
      const t0 = performance.now();
      const res = await client.request("POST", `/calls?mode=${mode}&n=${n}`);
      const wallMs = performance.now() - t0;
      const cpuMs = ((await cpuSeconds(workerd)) - cpu0) * 1000;
      if (JSON.parse(res.text).calls !== n) throw new Error(`${mode}: ${res.text}`);
      return { wallMs, cpuMs };
    };
    for (const mode of MODES) await once(mode.id, 50); // warm-up: the object, its table, the JIT
    const samples = new Map(MODES.map((mode) => [mode.id, { wall: [], cpu: [] }]));
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? MODES : [...MODES].reverse();
      for (const mode of order) {
        const { wallMs, cpuMs } = await once(mode.id, calls);
        samples.get(mode.id).wall.push((wallMs * 1000) / calls);
        samples.get(mode.id).cpu.push((cpuMs * 1000) / calls);
      }
      log(`round ${round + 1}/${rounds} done`);
    }
    const base = samples.get("direct");
    return MODES.flatMap((mode) => {
      const { wall, cpu } = samples.get(mode.id);
      const vs = mode.id === "direct" ? "" : `; ${(median(wall) / median(base.wall)).toFixed(2)}× direct`;
      return [
        {
          name: `${mode.label}: wall per call`,
          value: Number(median(wall).toFixed(1)),
          unit: "µs",
          note: `median of ${rounds} rounds of ${calls} calls (${Math.min(...wall).toFixed(1)}–${Math.max(...wall).toFixed(1)})${vs}`,
        },
        {
          name: `${mode.label}: workerd CPU per call`,
          value: Number(median(cpu).toFixed(1)),
          unit: "µs",
          note: `(${Math.min(...cpu).toFixed(1)}–${Math.max(...cpu).toFixed(1)})`,
        },
      ];
    });
  } finally {
    await server.stop();
  }
}
