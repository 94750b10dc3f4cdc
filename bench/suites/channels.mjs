// Channels suite (issue 38's proof): an inbound Telegram update (a text DM and a photo DM, whose
// file the fake serves: issue 46 item 2) and a Slack event → the reply's
// `sendMessage` (`chat.postMessage`) arriving at the fake platform API, p50/p99, and the webhook's
// own answer time, for this service and beside it the real OpenClaw gateway (node_modules/openclaw)
// in webhook mode with the same fake (its own process) and the same mock model (answers at once).
// Sequential DMs from one sender under dmPolicy "open" (no pairing), dmScope "main" on both sides,
// the two sides alternating in rounds. The reply time is the fake's arrival stamp minus the POST's
// start (same clock, 1 ms resolution). The real gateway is started here in a temp dir and stopped
// at the end; BENCH_PEER=off skips it, BENCH_CHANNELS_SLACK=off skips Slack (both sides).
// Microsoft Teams (this service only: no recording harness reaches the real gateway's Teams SDK):
// an activity signed by the fake Bot Connector → its reply activity; BENCH_CHANNELS_MSTEAMS=off skips it.
// Then the burst of issue 46 item 7 on this service (bench/lib/channel-burst.mjs): 400 DMs from
// 400 chats, 40 POSTs in flight, one tenant (dmScope per-channel-peer: a session per chat).
// BENCH_CHANNELS_BURST=off skips it; BENCH_CHANNELS_SEQUENTIAL=off skips the sequential DMs.
// WhatsApp Cloud API, LINE and Google Chat (this service only: no OpenClaw plugin or harness for
// them here): bench/lib/served-channels.mjs, BENCH_CHANNELS_WHATSAPP / _LINE / _GOOGLECHAT=off.
import { createHmac } from "node:crypto";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { startToolMockModel } from "../../test/peers/tool-mock-model.mjs";
import { benchTenant } from "../lib/bench-tenant.mjs";
import { telegramBurst } from "../lib/channel-burst.mjs";
import { startFakeApi, startRealGateway } from "../lib/channel-peers.mjs";
import { fmt, summarize } from "../lib/measure.mjs";
import { REAL_GATEWAY_MISSING, servedOnlyPlatforms } from "../lib/served-channels.mjs";

export const description =
  "channels: Telegram update → sendMessage (and Slack event → chat.postMessage) at the fake, beside the real gateway in webhook mode; Teams, WhatsApp, LINE, Google Chat for this service";

const TENANT = `bench-channels-${Date.now().toString(36)}`;
const BOT_TOKEN = "123456789:TEST-fake-telegram-token";
const TG_SECRET = "tg-webhook-secret-0123456789";
const SLACK_BOT_TOKEN = "xoxb-test-0000-fake";
const SLACK_SIGNING_SECRET = "slack-signing-secret-0123456789abcdef";
const DM_USER = 555100;
const SLACK_DM = { channel: "D0ALICE", user: "U0ALICE", team: "T0TEST", bot: "U0BOT" };
/** Per message: the reply must reach the fake within this. */
const REPLY_TIMEOUT_MS = 30_000;
const POLL_MS = 5;
const WARMUPS = 3;
const BURST_TENANT = `bench-burst-${Date.now().toString(36)}`;
const BURST_CHATS = 400;
const BURST_IN_FLIGHT = 40;
/** The burst's fake Bot API answers after this (BENCH_TG_LATENCY_MS overrides; 0 = at once). */
const BURST_API_LATENCY_MS = 100;
/** The burst's bound: every reply must arrive within this. */
const BURST_DEADLINE_MS = 180_000;
/** The whole real-gateway start (plugin install aside) including its setWebhook. */
const PEER_START_TIMEOUT_MS = 180_000;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let nextUpdateId = Date.now() % 1_000_000_000;

function telegramDm(text) {
  const id = nextUpdateId++;
  return {
    update_id: id,
    message: {
      message_id: id % 1_000_000,
      from: { id: DM_USER, is_bot: false, first_name: "Bench", username: "bench" },
      chat: { id: DM_USER, type: "private", first_name: "Bench" },
      date: Math.floor(Date.now() / 1000),
      text,
    },
  };
}

/** A photo DM (issue 46 item 2): the fake serves the file; the reply comes after getFile + download. */
function telegramPhotoDm(text) {
  const update = telegramDm(undefined);
  const { text: _text, ...message } = update.message;
  const photo = [{ file_id: `bench-${update.update_id}`, file_unique_id: `u${update.update_id}`, width: 1, height: 1 }];
  return { ...update, message: { ...message, photo, caption: text } };
}

function slackDm(text) {
  const id = nextUpdateId++;
  const ts = `${Math.floor(Date.now() / 1000)}.${String(id % 1_000_000).padStart(6, "0")}`;
  return {
    token: "legacy-verification-token",
    team_id: SLACK_DM.team,
    api_app_id: "A0TEST",
    type: "event_callback",
    event_id: `Ev${id}`,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [{ enterprise_id: null, team_id: SLACK_DM.team, user_id: SLACK_DM.bot, is_bot: true }],
    event: {
      type: "message",
      channel: SLACK_DM.channel,
      user: SLACK_DM.user,
      text,
      ts,
      event_ts: ts,
      channel_type: "im",
      team: SLACK_DM.team,
    },
  };
}

/** The tenant's agent: the `openai` runner on the mock model. */
const mockAgents = (modelUrl) => ({
  list: [{ id: "main", default: true, runner: { type: "openai", baseUrl: modelUrl, model: "mock" } }],
});

/** `channels.telegram` at a fake Bot API, open to every sender. */
const telegramConfig = (apiRoot) => ({
  enabled: true,
  botToken: BOT_TOKEN,
  apiRoot,
  webhookSecret: TG_SECRET,
  webhookPath: "/telegram-webhook",
  dmPolicy: "open",
  allowFrom: ["*"],
});

const telegramHeaders = () => ({ "x-telegram-bot-api-secret-token": TG_SECRET });

const MSTEAMS_APP_ID = "00000000-0000-4000-8000-00000000a11d";
const MSTEAMS_DM = "a:bench-dm";
/** A personal-chat message activity as the fake Bot Connector posts it (`serviceUrl` the fake's). */
function msTeamsDm(serviceUrl) {
  return (text) => ({
    type: "message",
    id: String(nextUpdateId++),
    channelId: "msteams",
    serviceUrl,
    conversation: { id: MSTEAMS_DM, conversationType: "personal" },
    from: { id: "29:bench", aadObjectId: "aad-bench", name: "Bench" },
    recipient: { id: `28:${MSTEAMS_APP_ID}`, name: "OpenClaw" },
    text,
  });
}
/** The fake's Bot Framework token (an hour long: one serves the whole run). */
async function msTeamsToken(fake) {
  const res = await fetch(`${fake.url}/__sign`, { method: "POST", body: "{}" });
  return (await res.json()).token;
}
function slackHeaders(body) {
  const at = Math.floor(Date.now() / 1000);
  const signature = `v0=${createHmac("sha256", SLACK_SIGNING_SECRET).update(`v0:${at}:${body}`).digest("hex")}`;
  return { "x-slack-signature": signature, "x-slack-request-timestamp": String(at) };
}

/**
 * A channel's measurement loop against one fake: POST `build(text)` to a target's URL, wait for
 * the reply call (`isReply(call)`) at the fake after everything seen so far; `callName` names a
 * call in the row's note.
 */
function channelDriver({ fake, build, headers, isReply, callName = (c) => c.method ?? c.body?.type ?? c.kind }) {
  let cursor = 0;
  const sync = async () => {
    for (const c of await fake.calls(cursor)) cursor = Math.max(cursor, c.seq);
  };
  async function once(url, text, signal) {
    await sync();
    const body = JSON.stringify(build(text));
    const sentAt = Date.now();
    const t0 = performance.now();
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers(body) },
      body,
      signal: AbortSignal.timeout(REPLY_TIMEOUT_MS),
    });
    await res.text();
    const answerMs = performance.now() - t0;
    if (res.status !== 200) throw new Error(`webhook answered ${res.status}`);
    const deadline = Date.now() + REPLY_TIMEOUT_MS;
    const seen = [];
    for (;;) {
      signal?.throwIfAborted();
      const calls = await fake.calls(cursor);
      for (const c of calls) cursor = Math.max(cursor, c.seq);
      seen.push(...calls);
      const reply = calls.find(isReply);
      if (reply) {
        const upToReply = seen.filter((c) => c.seq <= reply.seq).map(callName);
        const accepted = res.headers.get("x-openclaw-delivery-accepted");
        return { answerMs, replyMs: reply.t - sentAt, calls: upToReply.join(" + "), accepted };
      }
      if (Date.now() > deadline) throw new Error(`no reply at the fake within ${REPLY_TIMEOUT_MS / 1000} s`);
      await sleep(POLL_MS);
    }
  }
  return { once };
}

export async function run(ctx) {
  const { baseUrl, log, signal, repoRoot } = ctx;
  const perSide = ctx.quick ? 6 : 30;
  const withSlack = process.env.BENCH_CHANNELS_SLACK !== "off";
  const withPeer = process.env.BENCH_PEER !== "off";
  const peers = join(repoRoot, "test/peers");
  const stops = [];
  const rows = [];
  try {
    const mock = await startToolMockModel();
    stops.push(() => mock.close());
    const tg = await startFakeApi(join(peers, "fake-telegram.mjs"), {
      env: { TG_TOKEN: BOT_TOKEN },
      label: "fake Telegram",
    });
    stops.push(tg.stop);
    const slackFake = withSlack ? await startFakeApi(join(peers, "fake-slack.mjs"), { label: "fake Slack" }) : null;
    if (slackFake) stops.push(slackFake.stop);
    const withTeams = process.env.BENCH_CHANNELS_MSTEAMS !== "off";
    const teamsFake = withTeams
      ? await startFakeApi(join(peers, "fake-msteams.mjs"), { label: "fake Bot Connector" })
      : null;
    if (teamsFake) stops.push(teamsFake.stop);
    const served = [];
    for (const platform of servedOnlyPlatforms()) {
      const fake = await platform.start(peers);
      stops.push(fake.stop);
      served.push({ platform, fake });
    }
    const servedConfig = {};
    for (const { platform, fake } of served) Object.assign(servedConfig, await platform.config(fake));

    // The real gateway starts (~1 min on a loaded machine) while this service's tenant is set up.
    let peerFailure = withPeer ? null : "BENCH_PEER=off";
    const peerStart = withPeer
      ? startRealGateway({
          repoRoot,
          modelUrl: mock.url,
          telegram: { botToken: BOT_TOKEN, apiRoot: tg.url, secret: TG_SECRET },
          slack: slackFake
            ? { botToken: SLACK_BOT_TOKEN, signingSecret: SLACK_SIGNING_SECRET, apiRoot: slackFake.url }
            : undefined,
          log,
          startTimeoutMs: PEER_START_TIMEOUT_MS,
        }).then(
          (gw) => {
            stops.unshift(gw.stop);
            return gw;
          },
          (error) => {
            peerFailure = error.message;
            return null;
          },
        )
      : Promise.resolve(null);

    const { client } = await benchTenant(baseUrl, signal, TENANT, ["operator.admin"]);
    await client.request("PUT", "/v1/config", {
      body: {
        session: { dmScope: "main" },
        agents: mockAgents(mock.url),
        channels: {
          telegram: telegramConfig(tg.url),
          ...(slackFake
            ? {
                slack: {
                  enabled: true,
                  mode: "http",
                  botToken: SLACK_BOT_TOKEN,
                  signingSecret: SLACK_SIGNING_SECRET,
                  webhookPath: "/slack/events",
                  apiRoot: `${slackFake.url}/api/`,
                  dmPolicy: "open",
                  allowFrom: ["*"],
                },
              }
            : {}),
          ...(teamsFake
            ? {
                msteams: {
                  enabled: true,
                  appId: MSTEAMS_APP_ID,
                  appPassword: "fake-msteams-app-password",
                  apiRoot: `${teamsFake.url}/`,
                  tokenUrl: `${teamsFake.url}/botframework.com/oauth2/v2.0/token`,
                  openIdMetadataUrl: `${teamsFake.url}/v1/.well-known/openidconfiguration`,
                  dmPolicy: "open",
                  allowFrom: ["*"],
                },
              }
            : {}),
          ...servedConfig,
        },
      },
    });

    let gw = await peerStart;
    if (gw) {
      // Up means its gateway port answers; its Telegram listener is ready once it called setWebhook.
      log("real gateway up; waiting for its setWebhook at the fake");
      const deadline = Date.now() + PEER_START_TIMEOUT_MS;
      while (!(await tg.calls(0)).some((c) => c.method === "setWebhook" && c.status === 200)) {
        if (Date.now() > deadline) {
          peerFailure = `real gateway never called setWebhook within ${PEER_START_TIMEOUT_MS / 1000} s: ${gw.logTail(3).join(" / ").slice(0, 300)}`;
          gw = null;
          break;
        }
        await sleep(500);
      }
    }
    if (peerFailure) log(`real gateway side missing: ${peerFailure}`);

    const channels = [
      {
        name: "Telegram update → sendMessage",
        driver: channelDriver({
          fake: tg,
          build: telegramDm,
          headers: telegramHeaders,
          isReply: (c) => c.method === "sendMessage" && String(c.body?.chat_id) === String(DM_USER) && c.status === 200,
        }),
        service: `${baseUrl}/t/${TENANT}/telegram-webhook`,
        real: gw?.webhookUrl,
        realMissing: peerFailure,
      },
    ];
    channels.push({
      name: "Telegram photo DM → sendMessage",
      driver: channelDriver({
        fake: tg,
        build: telegramPhotoDm,
        headers: telegramHeaders,
        isReply: (c) =>
          c.method === "sendMessage" &&
          String(c.body?.chat_id) === String(DM_USER) &&
          c.status === 200 &&
          !String(c.body?.text).startsWith("⚠️"),
      }),
      service: `${baseUrl}/t/${TENANT}/telegram-webhook`,
      real: gw?.webhookUrl,
      realMissing: peerFailure,
    });
    if (slackFake) {
      channels.push({
        name: "Slack event → chat.postMessage",
        driver: channelDriver({
          fake: slackFake,
          build: slackDm,
          headers: slackHeaders,
          isReply: (c) => c.method === "chat.postMessage" && c.body?.channel === SLACK_DM.channel,
        }),
        service: `${baseUrl}/t/${TENANT}/slack/events`,
        real: gw?.slackUrl,
        realMissing: peerFailure ?? gw?.slackSkipped,
      });
    }

    if (teamsFake) {
      const bearer = `Bearer ${await msTeamsToken(teamsFake)}`;
      channels.push({
        name: "Teams activity → reply activity",
        driver: channelDriver({
          fake: teamsFake,
          build: msTeamsDm(`${teamsFake.url}/`),
          headers: () => ({ authorization: bearer }),
          isReply: (c) =>
            c.kind === "activity" && c.body?.type === "message" && c.conversationId === MSTEAMS_DM && c.status === 201,
        }),
        service: `${baseUrl}/t/${TENANT}/api/messages`,
        realMissing:
          "not recorded: the real gateway's Teams SDK sends with axios, which the loopback harness cannot redirect",
      });
    }

    for (const { platform, fake } of served) {
      const { name, path, ...driver } = await platform.channel(fake);
      channels.push({
        name,
        driver: channelDriver({ fake, ...driver }),
        service: `${baseUrl}/t/${TENANT}${path}`,
        realMissing: REAL_GATEWAY_MISSING,
      });
    }

    for (const channel of process.env.BENCH_CHANNELS_SEQUENTIAL === "off" ? [] : channels) {
      const sides = [
        { label: "this service", url: channel.service, answer: [], reply: [], errors: 0, note: "" },
        ...(channel.real
          ? [{ label: "real gateway", url: channel.real, answer: [], reply: [], errors: 0, note: "" }]
          : []),
      ];
      const measureBatch = async (side, count, record) => {
        for (let i = 0; i < count && side.errors === 0; i++) {
          try {
            const r = await channel.driver.once(side.url, `bench ${side.label} ${i} ${Date.now()}`, signal);
            side.calls = r.calls;
            side.accepted = r.accepted;
            if (record) {
              side.answer.push(r.answerMs);
              side.reply.push(r.replyMs);
            }
          } catch (error) {
            if (signal?.aborted) throw error;
            // A late reply could be taken for the next message's: this side stops here.
            side.errors++;
            side.note = error.message.slice(0, 160);
            log(`!! ${channel.name} — ${side.label}: ${side.note}`);
          }
        }
      };
      for (const side of sides) {
        log(`${channel.name} — ${side.label}: ${WARMUPS} warm-up messages`);
        await measureBatch(side, WARMUPS, false);
      }
      // Two rounds, the order swapped, so drift in the machine's load hits both sides alike.
      for (const order of [sides, [...sides].reverse()]) {
        for (const side of order) {
          log(`${channel.name} — ${side.label}: ${perSide / 2} messages`);
          await measureBatch(side, perSide / 2, true);
        }
      }
      for (const side of sides) {
        const reply = summarize(side.reply);
        const answer = summarize(side.answer);
        log(
          `${channel.name} — ${side.label}: reply p50 ${fmt(reply.p50)} / p99 ${fmt(reply.p99)} ms; answer p50 ${fmt(answer.p50)} / p99 ${fmt(answer.p99)} ms (n=${reply.n})`,
        );
        const err = side.label === "this service" ? side.errors : 0;
        const failed = side.errors ? `; ${side.errors} failed, stopped: ${side.note}` : "";
        rows.push(
          {
            name: `${channel.name}, ${side.label}, p50`,
            value: reply.p50,
            unit: "ms",
            note: `POST → reply call at the fake, n=${reply.n}, sequential DMs; the last one's calls at the fake: ${side.calls ?? "?"}${failed}`,
            errors: err,
          },
          {
            name: `${channel.name}, ${side.label}, p99`,
            value: reply.p99,
            unit: "ms",
            note: `max ${fmt(reply.max)} ms`,
          },
          {
            name: `${channel.name}, ${side.label}, webhook 200 p50`,
            value: answer.p50,
            unit: "ms",
            note: `the webhook's own answer, p99 ${fmt(answer.p99)} ms${side.accepted ? `; x-openclaw-delivery-accepted: ${side.accepted}` : ""}`,
          },
        );
      }
      if (!channel.real) {
        rows.push({
          name: `${channel.name}, real gateway`,
          value: Number.NaN,
          unit: "ms",
          note: `not measured: ${channel.realMissing ?? "no real gateway"}`,
        });
      }
    }
    if (process.env.BENCH_CHANNELS_BURST !== "off") rows.push(...(await burstRows(ctx, mock.url, peers)));
    return rows;
  } finally {
    for (const stop of stops) await stop().catch(() => {});
  }
}

/**
 * The 400-DM burst against this service, on a tenant of its own, with a fake Bot API of its own
 * that answers after BURST_API_LATENCY_MS (Telegram's round trip is not 1 ms: an inbox that
 * awaits each turn's typing call one at a time pays it once per update).
 */
async function burstRows({ baseUrl, log, signal, quick }, modelUrl, peers) {
  const chats = quick ? BURST_CHATS / 10 : BURST_CHATS;
  const latencyMs = Number(process.env.BENCH_TG_LATENCY_MS ?? BURST_API_LATENCY_MS);
  const tg = await startFakeApi(join(peers, "fake-telegram.mjs"), {
    env: { TG_TOKEN: BOT_TOKEN, TG_LATENCY_MS: String(latencyMs) },
    label: "fake Telegram (burst)",
  });
  try {
    return await burst({ baseUrl, log, signal }, modelUrl, tg, chats, latencyMs);
  } finally {
    await tg.stop();
  }
}

async function burst({ baseUrl, log, signal }, modelUrl, tg, chats, latencyMs) {
  const { client } = await benchTenant(baseUrl, signal, BURST_TENANT, ["operator.admin"]);
  await client.request("PUT", "/v1/config", {
    body: {
      session: { dmScope: "per-channel-peer" },
      agents: mockAgents(modelUrl),
      channels: { telegram: telegramConfig(tg.url) },
    },
  });
  log(`burst: ${chats} DMs from ${chats} chats, ${BURST_IN_FLIGHT} in flight, Bot API answers after ${latencyMs} ms`);
  const burst = await telegramBurst({
    url: `${baseUrl}/t/${BURST_TENANT}/telegram-webhook`,
    secret: TG_SECRET,
    fake: tg,
    chats,
    inFlight: BURST_IN_FLIGHT,
    firstChat: 610_000,
    deadlineMs: BURST_DEADLINE_MS,
    signal,
  });
  const line = `burst: ${burst.replied}/${burst.posted} replied (${burst.extraReplies} extra), acked in ${fmt(burst.ackedSeconds)} s, all replies in ${fmt(burst.allRepliesSeconds)} s; update → reply p50 ${fmt(burst.reply.p50)} / p99 ${fmt(burst.reply.p99)} ms`;
  log(line);
  const name = `Telegram ${chats}-DM burst (${chats} chats, ${BURST_IN_FLIGHT} in flight, Bot API ${latencyMs} ms)`;
  const errors = burst.postErrors + (burst.posted - burst.replied) + burst.extraReplies;
  return [
    {
      name: `${name}, all replies`,
      value: burst.allRepliesSeconds,
      unit: "s",
      note: `${burst.replied}/${burst.posted} replied, ${burst.extraReplies} twice; every POST acknowledged in ${fmt(burst.ackedSeconds)} s`,
      errors,
    },
    { name: `${name}, update → reply p50`, value: burst.reply.p50, unit: "ms", note: `n=${burst.reply.n}` },
    { name: `${name}, update → reply p99`, value: burst.reply.p99, unit: "ms", note: `max ${fmt(burst.reply.max)} ms` },
  ];
}
