#!/usr/bin/env node
// CPU per Telegram DM turn (issue 46 item 7): bursts of one DM from each of N chats, 40 POSTs in
// flight, against the service (`wrangler dev`, or workerd directly with BENCH_RUNTIME=direct), a
// fake Bot API answering after --latency ms and the mock model. Per round: the burst's figures
// (bench/lib/channel-burst.mjs), workerd's user + system time over the burst and a 2 s idle tail
// ÷ turns, per workerd process, and the 1-min load before and after. A warm-up burst of 10 chats
// comes first. --reuse DMs the same chats every round (existing sessions; the first round still
// makes them). --profile (BENCH_RUNTIME=direct only) takes a CPU profile of the isolate over the
// last round, written as a .cpuprofile (Chrome DevTools opens it) and summarized.
//
//   node bench/burst-cpu.mjs [--chats 60] [--rounds 2] [--latency 100] [--reuse] [--profile out.cpuprofile] [--top 40]
import { writeFile } from "node:fs/promises";
import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startToolMockModel } from "../test/peers/tool-mock-model.mjs";
import { BENCH_SERVER_VARS, benchTenant } from "./lib/bench-tenant.mjs";
import { telegramBurst } from "./lib/channel-burst.mjs";
import { startFakeApi } from "./lib/channel-peers.mjs";
import { startProfiler, summarizeProfile } from "./lib/cpu-profile.mjs";
import { fmt } from "./lib/measure.mjs";
import { workerdCpuMs, workerdCpuMsByPid } from "./lib/process-cpu.mjs";
import { freePort, startServer } from "./lib/server.mjs";

const BOT_TOKEN = "123456789:TEST-fake-telegram-token";
const TG_SECRET = "tg-webhook-secret-0123456789";
const IN_FLIGHT = 40;
const WARMUP_CHATS = 10;
const IDLE_TAIL_MS = 2_000;
const DEADLINE_MS = 240_000;

const { values: opts } = parseArgs({
  options: {
    chats: { type: "string", default: "60" },
    rounds: { type: "string", default: "2" },
    latency: { type: "string", default: "100" },
    reuse: { type: "boolean", default: false },
    profile: { type: "string" },
    top: { type: "string", default: "40" },
  },
});
const chats = Number(opts.chats);
const rounds = Number(opts.rounds);
const repoRoot = join(import.meta.dirname, "..");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const load = () => loadavg()[0].toFixed(1);

const runtime = process.env.BENCH_RUNTIME ?? "wrangler";
let inspectorPort;
if (opts.profile) {
  if (runtime !== "direct") throw new Error("--profile needs BENCH_RUNTIME=direct (see bench/lib/cpu-profile.mjs)");
  inspectorPort = await freePort();
  process.env.BENCH_INSPECTOR_PORT = String(inspectorPort);
}
const server = await startServer({ cwd: repoRoot, runtime, vars: BENCH_SERVER_VARS, log: console.log });
const mock = await startToolMockModel();
const tg = await startFakeApi(join(repoRoot, "test/peers/fake-telegram.mjs"), {
  env: { TG_TOKEN: BOT_TOKEN, TG_LATENCY_MS: opts.latency },
  label: "fake Telegram",
});
try {
  const tenant = `burst-cpu-${Date.now().toString(36)}`;
  const { client } = await benchTenant(server.baseUrl, undefined, tenant, ["operator.admin"]);
  const telegram = {
    enabled: true,
    botToken: BOT_TOKEN,
    apiRoot: tg.url,
    webhookSecret: TG_SECRET,
    webhookPath: "/telegram-webhook",
    dmPolicy: "open",
    allowFrom: ["*"],
  };
  const agents = {
    list: [{ id: "main", default: true, runner: { type: "openai", baseUrl: mock.url, model: "mock" } }],
  };
  await client.request("PUT", "/v1/config", {
    body: { session: { dmScope: "per-channel-peer" }, agents, channels: { telegram } },
  });
  const url = `${server.baseUrl}/t/${tenant}/telegram-webhook`;
  let firstChat = 700_000;
  const run = async (n) => {
    const burst = await telegramBurst({
      url,
      secret: TG_SECRET,
      fake: tg,
      chats: n,
      inFlight: IN_FLIGHT,
      firstChat,
      deadlineMs: DEADLINE_MS,
    });
    if (!opts.reuse || n === WARMUP_CHATS) firstChat += n;
    return burst;
  };
  await run(WARMUP_CHATS);
  await sleep(IDLE_TAIL_MS);
  for (let round = 1; round <= rounds; round++) {
    const profiler = opts.profile && round === rounds ? await startProfiler(inspectorPort) : undefined;
    const loadBefore = load();
    const byPidBefore = workerdCpuMsByPid(server.pid);
    const cpuBefore = workerdCpuMs(server.pid);
    const burst = await run(chats);
    await sleep(IDLE_TAIL_MS);
    const cpu = workerdCpuMs(server.pid) - cpuBefore;
    const byPid = [...workerdCpuMsByPid(server.pid)].map(
      ([pid, ms]) => `${pid} ${fmt(ms - (byPidBefore.get(pid) ?? 0))} ms`,
    );
    const profile = await profiler?.stop();
    console.log(
      `round ${round}: ${chats} chats, ${burst.replied}/${burst.posted} replied (${burst.extraReplies} twice), ` +
        `acked ${fmt(burst.ackedSeconds)} s, all replies ${fmt(burst.allRepliesSeconds)} s, ` +
        `p50 ${fmt(burst.reply.p50)} / p99 ${fmt(burst.reply.p99)} ms; ` +
        `workerd CPU ${fmt(cpu)} ms = ${fmt(cpu / chats)} ms per turn (${byPid.join(", ")}); load ${loadBefore} → ${load()}`,
    );
    if (burst.replied < burst.posted) {
      // Why replies are missing: the service's warnings (run.failed, delivery.failed…), counted by text.
      const reasons = new Map();
      for (const line of server.logLines().filter((l) => /failed|lost|error/i.test(l))) {
        const reason = line.replace(/"(run|session|update|tenant)":"[^"]*",?/g, "").slice(0, 200);
        reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
      }
      for (const [reason, count] of reasons) console.log(`  ${count}× ${reason}`);
    }
    if (profile) {
      await writeFile(opts.profile, JSON.stringify(profile));
      console.log(summarizeProfile(profile, Number(opts.top)));
    }
  }
} finally {
  await tg.stop();
  await server.stop();
}
process.exit(0);
