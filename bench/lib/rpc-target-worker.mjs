// The cost of reaching a Durable Object's role through an RpcTarget (docs/architecture.md,
// "Ports by role"): one object, the same work behind three surfaces. `POST /calls?mode=…&n=…`
// makes n sequential calls from the worker to the object and answers when they are done:
//   direct    stub.recordRun(id)             a method of the object's class (today's TenantObject)
//   pipelined stub.runs().recordRun(id)      a method returning an RpcTarget, the call pipelined on it
//   getter    stub.runsRole.recordRun(id)    the same RpcTarget behind a getter
//   held      (await stub.runs()).recordRun  the target's stub taken once, then n calls on it
// Each call only updates a Map (a SQLite write would add its commit's wait to every call and
// hide the difference: ≈5 ms per awaited call here). Served by
// bench/lib/direct-server.mjs --worker rpc-target-worker.mjs --durable-object TARGET=Target.
import { DurableObject, RpcTarget } from "cloudflare:workers";

class Runs extends RpcTarget {
  #runs = new Map();
  recordRun(runId) {
    this.#runs.set(runId, Date.now());
    return runId;
  }
}

export class Target extends DurableObject {
  #runs;
  constructor(ctx, env) {
    super(ctx, env);
    this.#runs = new Runs();
  }
  recordRun(runId) {
    return this.#runs.recordRun(runId);
  }
  runs() {
    return this.#runs;
  }
  get runsRole() {
    return this.#runs;
  }
}

const CALLS = {
  direct: (stub, id) => stub.recordRun(id),
  pipelined: (stub, id) => stub.runs().recordRun(id),
  getter: (stub, id) => stub.runsRole.recordRun(id),
};

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === "/health") return Response.json({ ok: true });
    const mode = url.searchParams.get("mode");
    const n = Number(url.searchParams.get("n") ?? 100);
    const stub = env.TARGET.getByName("bench");
    if (mode === "held") {
      using runs = await stub.runs();
      for (let i = 0; i < n; i++) await runs.recordRun(`run-${i}`);
    } else if (CALLS[mode]) {
      for (let i = 0; i < n; i++) await CALLS[mode](stub, `run-${i}`);
    } else {
      return Response.json(
        { ok: false, error: { type: "invalid_request", message: `mode: ${mode}` } },
        { status: 400 },
      );
    }
    return Response.json({ ok: true, calls: n });
  },
};
