// Copied from ../shared/peer/channels/scripts/fake-slack.mjs (formatted by biome). Changes: POST /__fail takes
// an optional "status" (the HTTP status of the failed answer, e.g. 500; default 200 with ok:false as Slack
// answers API errors), and POST /__reset also clears pending failures.
// Fake Slack Web API (loopback only). The @openclaw/slack plugin honours SLACK_API_URL
// (passed to @slack/web-api WebClient as slackApiUrl), so start the gateway with
//   SLACK_API_URL=http://127.0.0.1:<port>/api/
//   node fake-slack.mjs [port]      (default 18693)
// Web API: POST /api/<method> (form-urlencoded or JSON) -> {"ok":true,...} with plausible results.
// Control: GET /__calls?since=<seq>, POST /__reset, POST /__fail {"method":"chat.postMessage","count":1,"error":"channel_not_found","status":500}
// Every call is appended as one JSON line to $SLACK_LOG (if set).

import fs from "node:fs";
import http from "node:http";

const port = Number(process.argv[2] || process.env.SLACK_PORT || 18693);
const LOG = process.env.SLACK_LOG || "";
const TEAM = "T0TEST",
  BOT_USER = "U0BOT",
  BOT_ID = "B0BOT",
  APP = "A0TEST";
let seq = 0,
  tsCounter = 0;
const calls = [];
const failures = new Map();
const nextTs = () => `${Math.floor(Date.now() / 1000)}.${String(++tsCounter).padStart(6, "0")}`;

function parse(ct, raw) {
  const text = raw.toString("utf8");
  if (!text) return {};
  if (ct.includes("application/json")) {
    try {
      return JSON.parse(text);
    } catch {
      return { __raw: text };
    }
  }
  if (ct.includes("application/x-www-form-urlencoded")) {
    const o = Object.fromEntries(new URLSearchParams(text));
    for (const k of Object.keys(o))
      if (/^[[{]/.test(o[k])) {
        try {
          o[k] = JSON.parse(o[k]);
        } catch {}
      }
    return o;
  }
  return { __raw: text.slice(0, 2000) };
}
function channelInfo(id) {
  const im = String(id).startsWith("D");
  return im
    ? { id, is_im: true, is_channel: false, is_group: false, is_private: true, user: "U0ALICE", created: 1700000000 }
    : {
        id,
        name: `chan-${String(id).toLowerCase()}`,
        is_channel: true,
        is_group: false,
        is_im: false,
        is_private: false,
        is_member: true,
        created: 1700000000,
        topic: { value: "" },
        purpose: { value: "" },
      };
}
function result(method, b) {
  switch (method) {
    case "auth.test":
      return {
        url: "https://fake-team.slack.com/",
        team: "Fake Team",
        user: "openclaw",
        team_id: TEAM,
        user_id: BOT_USER,
        bot_id: BOT_ID,
        is_enterprise_install: false,
      };
    case "chat.postMessage": {
      const ts = nextTs();
      return {
        channel: b.channel,
        ts,
        message: {
          type: "message",
          subtype: undefined,
          text: b.text,
          user: BOT_USER,
          bot_id: BOT_ID,
          ts,
          ...(b.thread_ts ? { thread_ts: b.thread_ts } : {}),
        },
      };
    }
    case "chat.update":
      return { channel: b.channel, ts: b.ts, text: b.text };
    case "chat.postEphemeral":
      return { message_ts: nextTs() };
    case "chat.startStream":
      return { channel: b.channel, ts: nextTs() };
    case "chat.appendStream":
    case "chat.stopStream":
      return { channel: b.channel, ts: b.ts };
    case "conversations.info":
      return { channel: channelInfo(b.channel) };
    case "conversations.open":
      return { channel: { id: `D0${String(b.users ?? "X").replace(/^U0?/, "")}` } };
    case "conversations.replies":
    case "conversations.history":
      return { messages: [], has_more: false };
    case "conversations.members":
      return { members: ["U0ALICE", BOT_USER] };
    case "users.info":
      return {
        user: {
          id: b.user,
          team_id: TEAM,
          name: String(b.user).toLowerCase(),
          real_name: `Real ${b.user}`,
          is_bot: false,
          tz: "UTC",
          profile: { display_name: `disp${b.user}`, real_name: `Real ${b.user}` },
        },
      };
    case "bots.info":
      return { bot: { id: b.bot ?? BOT_ID, app_id: APP, name: "openclaw", user_id: BOT_USER } };
    case "team.info":
      return { team: { id: TEAM, name: "Fake Team", domain: "fake-team" } };
    case "users.conversations":
    case "conversations.list":
      return { channels: [], response_metadata: { next_cursor: "" } };
    case "apps.connections.open":
      return { url: "ws://127.0.0.1:1/none" };
    default:
      return {};
  }
}
function send(res, status, obj, headers = {}) {
  const s = JSON.stringify(obj);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(s),
    ...headers,
  });
  res.end(s);
}
http
  .createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      const url = new URL(req.url, "http://x");
      if (url.pathname === "/__calls")
        return send(res, 200, { calls: calls.filter((c) => c.seq > Number(url.searchParams.get("since") || 0)) });
      if (url.pathname === "/__reset") {
        calls.length = 0;
        failures.clear();
        return send(res, 200, { ok: true });
      }
      if (url.pathname === "/__fail") {
        const f = JSON.parse(raw.toString() || "{}");
        const l = failures.get(f.method) ?? [];
        l.push({ count: f.count ?? 1, error: f.error ?? "internal_error", status: f.status ?? 200 });
        failures.set(f.method, l);
        return send(res, 200, { ok: true });
      }
      const ct = String(req.headers["content-type"] || "");
      const m = /^\/api\/([A-Za-z0-9_.]+)$/.exec(url.pathname);
      const body = parse(ct, raw);
      const auth = String(req.headers.authorization || body.token || "");
      const rec = {
        seq: ++seq,
        t: Date.now(),
        iso: new Date().toISOString(),
        httpMethod: req.method,
        path: url.pathname,
        method: m?.[1] ?? null,
        contentType: ct || null,
        authorization: auth.replace(/(xox[a-z]-)[\w-]+/, "$1…"),
        body,
      };
      let status = 200,
        reply;
      if (!m) {
        status = 404;
        reply = { ok: false, error: "unknown_method" };
      } else {
        const fl = failures.get(m[1]);
        if (fl?.length) {
          const f = fl[0];
          if (--f.count <= 0) fl.shift();
          status = f.status;
          reply = { ok: false, error: f.error };
        } else reply = { ok: true, ...result(m[1], body) };
      }
      rec.status = status;
      rec.reply = reply;
      calls.push(rec);
      if (LOG) {
        try {
          fs.appendFileSync(LOG, `${JSON.stringify(rec)}\n`);
        } catch {}
      }
      process.stderr.write(
        `[slack] #${rec.seq} ${m?.[1] ?? url.pathname} -> ${status} ${reply.ok ? "" : reply.error}\n`,
      );
      send(res, status, reply);
    });
  })
  .listen(port, "127.0.0.1", () => process.stderr.write(`[slack] fake Web API on http://127.0.0.1:${port}/api/\n`));
