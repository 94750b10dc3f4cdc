// Memory suite: does anything stay behind when sockets go? Three rounds of 1,000 sockets that
// connect, subscribe to a session's messages and to session changes, receive one message, and
// close; workerd's RSS after each round. Bounded maps and owners that clear them keep the
// rounds flat; a leak grows by the same step every round.
import { closeAll, gatewayUrl, openMany } from "../lib/gateway.mjs";
import { fdLimit, openFds, serverMemory } from "../lib/procs.mjs";

export const description = "memory: workerd RSS after 1,000 sockets connect, subscribe and close, three times in a row";

const ROUNDS = Number(process.env.BENCH_MEMORY_ROUNDS ?? 3);
const OPEN_CONCURRENCY = 16;
const SUBSCRIBE_CONCURRENCY = 64;
/** Time for closes to reach the object and the runtime to free them before RSS is read. */
const SETTLE_MS = 3_000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export async function run(ctx) {
  const { log, signal, server, client } = ctx;
  const url = gatewayUrl(ctx.baseUrl);
  const room = (await fdLimit()).soft - (await openFds()) - 64;
  const sockets = Math.min(ctx.quick ? 100 : 1000, Math.max(1, room));
  const rows = [];
  const before = await serverMemory(server.pid);
  rows.push({ name: "workerd RSS before the rounds", value: before.workerdMiB, unit: "MiB" });

  for (let round = 1; round <= ROUNDS; round++) {
    signal?.throwIfAborted();
    const key = `agent:main:memory-${round}`;
    log(`round ${round}: ${sockets} sockets connect, subscribe, receive, close`);
    const opened = await openMany(url, { count: sockets, concurrency: OPEN_CONCURRENCY, signal, maxSeconds: 120 });
    let errors = opened.errors;
    let next = 0;
    await Promise.all(
      Array.from({ length: SUBSCRIBE_CONCURRENCY }, async () => {
        while (next < opened.conns.length) {
          const conn = opened.conns[next++];
          try {
            await conn.call("sessions.messages.subscribe", { key });
            await conn.call("sessions.subscribe", {});
          } catch {
            errors++;
          }
        }
      }),
    );
    await client.post(
      `/v1/sessions/${encodeURIComponent(key)}/messages`,
      { role: "user", content: `round ${round}` },
      { expect: 201 },
    );
    const open = await serverMemory(server.pid);
    const unclean = await closeAll(opened.conns);
    await sleep(SETTLE_MS);
    const closed = await serverMemory(server.pid);
    rows.push({
      name: `round ${round}: workerd RSS after close`,
      value: closed.workerdMiB,
      unit: "MiB",
      note: `${opened.conns.length} sockets; ${open.workerdMiB.toFixed(0)} MiB while open; ${unclean} unclean closes`,
      errors: errors + unclean,
    });
  }
  const rounds = rows.slice(1).map((row) => row.value);
  rows.push({
    name: "growth from round 1 to round 3",
    value: rounds.at(-1) - rounds[0],
    unit: "MiB",
    note: "a 12-line hibernating Durable Object in the same local runtime grows ~45 MiB per round of 1,000 sockets too (issue 10 closing note)",
  });
  return rows;
}
