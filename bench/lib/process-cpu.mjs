// CPU time of the workerd processes under a server (wrangler dev's child, or --direct's own):
// user + system time from /proc, in ms. Inside a Worker the clock does not advance while code
// runs (performance.now() moves only at I/O), so a Worker cannot measure its own CPU; the
// process's counters can. They hold everything workerd did: the Worker's request handling,
// every Durable Object (not billed for CPU), and the runtime's own work. An upper bound on the
// Worker CPU Cloudflare bills, at the kernel's tick (10 ms on this machine, so read over many ops).
import { readFileSync } from "node:fs";

const TICKS_PER_SECOND = 100; // CLK_TCK on Linux x86-64

function children(pid) {
  try {
    const tasks = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim();
    return tasks ? tasks.split(/\s+/).map(Number) : [];
  } catch {
    return [];
  }
}

/** `pid` and its descendants that are workerd processes. */
function workerdPids(pid) {
  const found = [];
  const queue = [pid];
  while (queue.length > 0) {
    const next = queue.shift();
    try {
      if (readFileSync(`/proc/${next}/comm`, "utf8").trim() === "workerd") found.push(next);
    } catch {
      continue;
    }
    queue.push(...children(next));
  }
  return found;
}

/** CPU ms (user + system) the workerd processes under `pid` used so far; null where /proc is not readable. */
export function workerdCpuMs(pid) {
  const byPid = workerdCpuMsByPid(pid);
  if (byPid.size === 0) return null;
  let ms = 0;
  for (const value of byPid.values()) ms += value;
  return ms;
}

/** The same per workerd process (wrangler dev runs two: the service's and its proxy's). */
export function workerdCpuMsByPid(pid) {
  const byPid = new Map();
  if (pid === undefined) return byPid;
  for (const p of workerdPids(pid)) {
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    const stat = readFileSync(`/proc/${p}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    byPid.set(p, ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND);
  }
  return byPid;
}
