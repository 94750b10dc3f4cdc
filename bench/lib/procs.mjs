// Process inspection through /proc (Linux only): the server's processes and their memory.
import { readdir, readFile } from "node:fs/promises";

/** Parses /proc/<pid>/stat: { pid, comm, ppid, pgid } (comm may contain spaces and parens). */
async function readStat(pid) {
  const text = await readFile(`/proc/${pid}/stat`, "utf8");
  const close = text.lastIndexOf(")");
  const comm = text.slice(text.indexOf("(") + 1, close);
  const fields = text.slice(close + 2).split(" ");
  return { pid: Number(pid), comm, ppid: Number(fields[1]), pgid: Number(fields[2]) };
}

async function allProcesses() {
  const out = [];
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      out.push(await readStat(name));
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/**
 * Processes belonging to the server started with pid `rootPid` (its own process group, plus any
 * descendant that left the group). Each: { pid, comm, ppid, pgid, exe }.
 */
export async function serverProcesses(rootPid) {
  const procs = await allProcesses();
  const byParent = new Map();
  for (const p of procs) {
    if (!byParent.has(p.ppid)) byParent.set(p.ppid, []);
    byParent.get(p.ppid).push(p);
  }
  const found = new Map();
  for (const p of procs) if (p.pgid === rootPid || p.pid === rootPid) found.set(p.pid, p);
  const queue = [rootPid];
  for (let guard = 0; queue.length > 0 && guard < 10_000; guard++) {
    const pid = queue.shift();
    for (const child of byParent.get(pid) ?? []) {
      if (!found.has(child.pid)) found.set(child.pid, child);
      queue.push(child.pid);
    }
  }
  const result = [];
  for (const p of found.values()) {
    let exe = "";
    try {
      exe = (await readFile(`/proc/${p.pid}/cmdline`, "utf8")).split("\0")[0];
    } catch {
      // exited or not readable
    }
    result.push({ ...p, exe });
  }
  return result;
}

/** The workerd processes of a server started with pid `rootPid` (for their CPU time). */
export async function workerdPids(rootPid) {
  return (await serverProcesses(rootPid)).filter((p) => p.comm === "workerd").map((p) => p.pid);
}

/** VmRSS of one process in KiB (NaN when it is gone). */
export async function rssKiB(pid) {
  try {
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

const isWorkerd = (p) => p.comm === "workerd" || /(^|\/)workerd$/.test(p.exe);

/**
 * Sum of VmRSS (MiB) of the server's workerd processes, and of all its processes.
 * Returns { workerdMiB, totalMiB, workerdPids, processes: [{ pid, comm, rssMiB }] }.
 */
export async function serverMemory(rootPid) {
  const procs = await serverProcesses(rootPid);
  let workerd = 0;
  let total = 0;
  const processes = [];
  const workerdPids = [];
  for (const p of procs) {
    const kib = await rssKiB(p.pid);
    if (!Number.isFinite(kib)) continue;
    total += kib;
    if (isWorkerd(p)) {
      workerd += kib;
      workerdPids.push(p.pid);
    }
    processes.push({ pid: p.pid, comm: p.comm, rssMiB: kib / 1024 });
  }
  return { workerdMiB: workerd / 1024, totalMiB: total / 1024, workerdPids, processes };
}

/** Open file descriptor limit of this process: { soft, hard } (Infinity when unlimited). */
export async function fdLimit(pid = "self") {
  const text = await readFile(`/proc/${pid}/limits`, "utf8");
  const match = /^Max open files\s+(\S+)\s+(\S+)/m.exec(text);
  const num = (v) => (v === "unlimited" ? Number.POSITIVE_INFINITY : Number(v));
  return match ? { soft: num(match[1]), hard: num(match[2]) } : { soft: Number.NaN, hard: Number.NaN };
}

/** Number of file descriptors this process has open now. */
export async function openFds(pid = "self") {
  try {
    return (await readdir(`/proc/${pid}/fd`)).length;
  } catch {
    return Number.NaN;
  }
}

/** User + system CPU seconds of these processes so far (clock ticks of 1/100 s). */
export async function cpuSeconds(pids) {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const text = await readFile(`/proc/${pid}/stat`, "utf8");
      const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // exited
    }
  }
  return ticks / 100;
}
