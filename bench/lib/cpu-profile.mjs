// A CPU profile of a workerd isolate over the Chrome DevTools protocol (workerd's V8 inspector:
// Miniflare's `inspectorPort`, BENCH_INSPECTOR_PORT in bench/lib/direct-server.mjs), and its
// summary: self and total time per function (file:line) and self time per source file. Under
// `wrangler dev` the service's inspector already has its one client (wrangler's inspector proxy),
// so bench/burst-cpu.mjs profiles workerd directly (BENCH_RUNTIME=direct).

/** Opens the DevTools protocol of the first target whose title or URL contains `match`. */
async function connect(port, match) {
  const list = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
  const target = list.find((t) => `${t.title} ${t.url} ${t.id}`.includes(match)) ?? list[0];
  if (!target) throw new Error(`no inspector target on port ${port}`);
  const socket = new WebSocket(target.webSocketDebuggerUrl ?? `ws://127.0.0.1:${port}/${target.id}`);
  await new Promise((resolve, reject) => {
    socket.addEventListener("open", resolve, { once: true });
    socket.addEventListener("error", () => reject(new Error(`inspector ${port} refused a client`)), { once: true });
  });
  let nextId = 1;
  const waiting = new Map();
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(String(event.data));
    const waiter = waiting.get(message.id);
    if (!waiter) return;
    waiting.delete(message.id);
    if (message.error) waiter.reject(new Error(message.error.message));
    else waiter.resolve(message.result);
  });
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      socket.send(JSON.stringify({ id, method, params }));
    });
  return { send, close: () => socket.close() };
}

/**
 * Starts sampling the service's isolate (`samplingIntervalUs`, default 200 µs; workerd samples
 * coarser under load); `stop()` answers the profile (DevTools' .cpuprofile shape).
 */
export async function startProfiler(port, { match = "openclaw-sessions", samplingIntervalUs = 200 } = {}) {
  const session = await connect(port, match);
  await session.send("Profiler.enable");
  await session.send("Profiler.setSamplingInterval", { interval: samplingIntervalUs });
  await session.send("Profiler.start");
  return {
    async stop() {
      const { profile } = await session.send("Profiler.stop");
      session.close();
      return profile;
    },
  };
}

const shortUrl = (url) => (url ? url.replace(/^.*\/(src|node_modules)\//, "$1/") : "(native)");
const frameKey = (node) =>
  `${node.callFrame.functionName || "(anonymous)"} ${shortUrl(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`;

/** Self and total time per function and self time per file, as text (the top `top` of each), in % of busy samples. */
export function summarizeProfile(profile, top = 40) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfSamples = new Map();
  for (const id of profile.samples) selfSamples.set(id, (selfSamples.get(id) ?? 0) + 1);
  const selfBy = new Map();
  const fileBy = new Map();
  const totalBy = new Map();
  const add = (map, key, count) => map.set(key, (map.get(key) ?? 0) + count);
  let busy = 0;
  for (const [id, count] of selfSamples) {
    const node = byId.get(id);
    if (node.callFrame.functionName === "(idle)") continue;
    busy += count;
    add(selfBy, frameKey(node), count);
    add(fileBy, shortUrl(node.callFrame.url), count);
    // Total: each function on the stack once per sample.
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) seen.add(frameKey(byId.get(at)));
    for (const key of seen) add(totalBy, key, count);
  }
  const pct = (c) => `${((100 * c) / busy).toFixed(1).padStart(5)}%`;
  const rank = (map) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([key, c]) => `  ${pct(c)}  ${key}`);
  const total = profile.samples.length;
  return [
    `profile: ${((profile.endTime - profile.startTime) / 1000).toFixed(0)} ms, ${total} samples, busy ${busy} (${((100 * busy) / total).toFixed(1)}%)`,
    "self time by function:",
    ...rank(selfBy),
    "self time by file:",
    ...rank(fileBy),
    "total time by function:",
    ...rank(totalBy),
  ].join("\n");
}
