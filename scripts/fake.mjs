// `npm run fake`: the chat platforms on loopback, to try docs/channels.md without a bot or an app.
//   npm run fake -- telegram            the fake Telegram Bot API (test/peers/fake-telegram.mjs) on :18691
//   npm run fake -- slack               the fake Slack Web API (test/peers/fake-slack.mjs) on :18693
//   npm run fake -- telegram send "hello"   posts a DM update to the service's webhook, prints the bot's answer
//   npm run fake -- slack send "hello"      posts a signed DM event to the service's Request URL, same
//   npm run fake -- line                the fake LINE Messaging API (test/peers/fake-line.mjs) on :18695
//   npm run fake -- line send "hello"   posts a signed DM event (X-Line-Signature) to /line/webhook, same
//   npm run fake -- msteams [send "hello"]  the fake Bot Connector (test/peers/fake-msteams.mjs) on :18696;
//                                          send: a personal-chat activity signed by the fake's key
//   npm run fake -- googlechat [send "hello"]  the fake Google (Chat API, token endpoint, certificates,
//                                          test/peers/fake-googlechat.mjs) on :18698; send: a DM event
//                                          signed by the fake's key as Google signs it
// Options: --port N (the fake's port), --base URL (the service; default $BASE, else
// http://127.0.0.1:8787), --tenant ID (posts under /t/ID), --secret S (Telegram's webhookSecret /
// Slack's signingSecret as configured), --from ID (the sender), --wait S (seconds for the answer).
// Plain Node, so it runs in any shell; it prints the apiRoot and token the tenant's config needs.
import { spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** What each platform's fake needs and what the tenant's config must say to use it. */
const PLATFORMS = {
  telegram: {
    script: "test/peers/fake-telegram.mjs",
    port: 18691,
    // The fake answers only this token (401 otherwise): the config's botToken must equal it.
    token: "123456789:TEST-fake-telegram-token",
    secret: "local-webhook-secret",
    from: "555100",
    apiRoot: (port) => `http://127.0.0.1:${port}`,
    replyMethod: "sendMessage",
    configBlock: (port, p) => ({
      enabled: true,
      botToken: p.token,
      webhookSecret: p.secret,
      apiRoot: p.apiRoot(port),
      dmPolicy: "pairing",
    }),
  },
  slack: {
    script: "test/peers/fake-slack.mjs",
    port: 18693,
    // The fake takes any token; the service needs one to call it.
    token: "xoxb-local-fake-token",
    secret: "local-signing-secret",
    from: "U0ALICE",
    apiRoot: (port) => `http://127.0.0.1:${port}/api/`,
    replyMethod: "chat.postMessage",
    configBlock: (port, p) => ({
      enabled: true,
      mode: "http",
      botToken: p.token,
      signingSecret: p.secret,
      apiRoot: p.apiRoot(port),
      dmPolicy: "pairing",
    }),
  },
  line: {
    script: "test/peers/fake-line.mjs",
    port: 18695,
    // The fake answers only this token (401 otherwise): the config's channelAccessToken must equal it.
    token: "line-fake-channel-access-token",
    secret: "local-line-channel-secret",
    tokenKey: "channelAccessToken",
    secretKey: "channelSecret",
    from: "U1111111111111111111111111111aaaa",
    apiRoot: (port) => `http://127.0.0.1:${port}`,
    replyMethod: "message/reply or message/push",
    webhookPath: "/line/webhook",
    isReply: (call) => /^\/v2\/bot\/message\/(reply|push)$/.test(call.path ?? ""),
    show: (call) => `${call.path} → ${call.body.messages.map((message) => message.text).join(" | ")}`,
    request: lineEvent,
    configBlock: (port, p) => ({
      enabled: true,
      channelAccessToken: p.token,
      channelSecret: p.secret,
      apiRoot: p.apiRoot(port),
      dmPolicy: "pairing",
    }),
  },
  msteams: {
    script: "test/peers/fake-msteams.mjs",
    port: 18696,
    // The fake's login answers only this app (MSTEAMS_APP_ID / MSTEAMS_APP_PASSWORD move it).
    token: "fake-msteams-app-password",
    appId: "00000000-0000-4000-8000-00000000a11d",
    secret: "",
    from: "aad-local-user",
    apiRoot: (port) => `http://127.0.0.1:${port}/`,
    replyMethod: "activity",
    configBlock: (port, p) => ({
      enabled: true,
      appId: p.appId,
      appPassword: p.token,
      apiRoot: p.apiRoot(port),
      tokenUrl: `http://127.0.0.1:${port}/botframework.com/oauth2/v2.0/token`,
      openIdMetadataUrl: `http://127.0.0.1:${port}/v1/.well-known/openidconfiguration`,
      dmPolicy: "pairing",
    }),
  },
  googlechat: {
    script: "test/peers/fake-googlechat.mjs",
    port: 18698,
    token: "",
    audience: "123456789012",
    secret: "",
    from: "users/111000111",
    apiRoot: (port) => `http://127.0.0.1:${port}`,
    replyMethod: "a Chat API message",
    // The fake makes its service account when it starts: the printed command reads it from there.
    configBlock: (port, p) => ({
      enabled: true,
      serviceAccount: SERVICE_ACCOUNT_FROM_FAKE,
      audienceType: "project-number",
      audience: p.audience,
      apiRoot: p.apiRoot(port),
      tokenUrl: `http://127.0.0.1:${port}/token`,
      certsUrl: `http://127.0.0.1:${port}/service_accounts/v1/metadata/x509/chat@system.gserviceaccount.com`,
      dmPolicy: "pairing",
    }),
  },
};
/** Stands for the fake's service-account key in the printed PATCH: a shell substitution reads it from the fake. */
const SERVICE_ACCOUNT_FROM_FAKE = "__SERVICE_ACCOUNT_FROM_FAKE__";

const USAGE = `usage: npm run fake -- telegram|slack|line|msteams|googlechat [send "text"] [--port N] [--base URL] [--tenant ID] [--secret S] [--from ID] [--wait S]`;
/** How long `send` waits for the bot's answer at the fake by default (a turn takes well under 1 s). */
const DEFAULT_WAIT_SECONDS = 30;
const POLL_INTERVAL_MS = 200;

const { values: options, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    port: { type: "string" },
    base: { type: "string" },
    tenant: { type: "string" },
    secret: { type: "string" },
    from: { type: "string" },
    wait: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});
const [name, command, ...words] = positionals;
const platform = PLATFORMS[name];
if (options.help || !platform || (command !== undefined && command !== "send")) {
  console.error(USAGE);
  process.exit(options.help ? 0 : 2);
}
// FAKE_TELEGRAM_PORT / FAKE_SLACK_PORT move a fake for every command of one shell (the docs test).
const port = Number(options.port ?? process.env[`FAKE_${name.toUpperCase()}_PORT`] ?? platform.port);
if (!Number.isInteger(port) || port <= 0 || port > 65535) fail(`--port must be a TCP port, not ${options.port}`);

if (command === "send") await send(words.join(" ") || "hello");
else serve();

function fail(message) {
  console.error(`npm run fake: ${message}`);
  process.exit(1);
}

/** Starts the fake in the foreground and says how to point a tenant at it. */
function serve() {
  const config = { channels: { [name]: platform.configBlock(port, platform) } };
  const body = JSON.stringify(config).replace(
    `"${SERVICE_ACCOUNT_FROM_FAKE}"`,
    `'"$(curl -s http://127.0.0.1:${port}/__service-account)"'`,
  );
  console.log(`Fake ${name} API on ${platform.apiRoot(port)} (Ctrl-C stops it)
  apiRoot   ${platform.apiRoot(port)}
  ${credentialLines(name, platform, port)}
Add it to the tenant's config, keeping the rest (PATCH merges; PUT would replace the whole config):
  curl -s -X PATCH "$BASE/v1/config" -H "$OP" -H 'content-type: application/merge-patch+json' -d '${body}'
Then, from another shell: npm run fake -- ${name} send "hello"`);
  const child = spawn(process.execPath, [join(ROOT, platform.script), String(port)], {
    stdio: "inherit",
    env: {
      ...process.env,
      ...(name === "telegram" ? { TG_TOKEN: platform.token } : {}),
      ...(name === "line" ? { FAKE_LINE_TOKEN: platform.token } : {}),
    },
  });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 0 : 1)));
}

/** Posts one inbound message as the platform would, then prints what the bot sent back at the fake. */
async function send(text) {
  const base = (options.base ?? process.env.BASE ?? "http://127.0.0.1:8787").replace(/\/+$/, "");
  const prefix = options.tenant ? `/t/${encodeURIComponent(options.tenant)}` : "";
  const secret = options.secret ?? platform.secret;
  const from = options.from ?? platform.from;
  const fakeUrl = `http://127.0.0.1:${port}`;
  const before = await fakeCalls(fakeUrl, 0);
  const since = before ? Math.max(0, ...before.map((call) => call.seq)) : 0;
  if (name === "msteams") return msTeamsSend(`${base}${prefix}/api/messages`, fakeUrl, text, from, since);
  if (name === "googlechat") return googleChatSend(`${base}${prefix}/googlechat`, fakeUrl, text, from, since);
  const request = platform.request
    ? platform.request(text, from, secret)
    : name === "telegram"
      ? telegramUpdate(text, from, secret)
      : slackEvent(text, from, secret);
  const url = `${base}${prefix}${platform.webhookPath ?? (name === "telegram" ? "/telegram-webhook" : "/slack/events")}`;
  let res;
  try {
    res = await fetch(url, { method: "POST", headers: request.headers, body: request.body });
  } catch (error) {
    fail(`cannot reach ${url} (${error.cause?.code ?? error.message}): is npm run dev running, and BASE right?`);
  }
  const answer = await res.text();
  console.log(`POST ${url} → ${res.status}${answer ? ` ${answer}` : ""}`);
  if (!res.ok) {
    fail(
      res.status === 401
        ? `refused: the ${platform.secretKey ?? (name === "telegram" ? "webhookSecret" : "signingSecret")} in the config is not "${secret}" (pass --secret)`
        : `the service answered ${res.status}`,
    );
  }
  if (!before) {
    console.log(`(no fake ${name} API on ${fakeUrl}: not waiting for the bot's answer)`);
    return;
  }
  const waitSeconds = Number(options.wait ?? DEFAULT_WAIT_SECONDS);
  const deadline = Date.now() + waitSeconds * 1000;
  while (Date.now() < deadline) {
    const isReply = platform.isReply ?? ((call) => call.method === platform.replyMethod);
    const replies = ((await fakeCalls(fakeUrl, since)) ?? []).filter(isReply);
    if (replies.length > 0) {
      for (const reply of replies)
        console.log(
          `← ${platform.show ? platform.show(reply) : `${reply.method} to ${chatOf(reply.body)}: ${reply.body.text}`}`,
        );
      return;
    }
    await new Promise((done) => setTimeout(done, POLL_INTERVAL_MS));
  }
  fail(`no ${platform.replyMethod} at the fake within ${waitSeconds} s (npm run dev's log says why)`);
}

/** The fake's call log after `since`, or undefined when no fake listens there. */
async function fakeCalls(fakeUrl, since) {
  try {
    const res = await fetch(`${fakeUrl}/__calls?since=${since}`);
    return res.ok ? (await res.json()).calls : undefined;
  } catch {
    return undefined;
  }
}

function chatOf(body) {
  return body.chat_id ?? body.channel ?? "?";
}

/** A private-chat message update, with the secret header Telegram sends. */
function telegramUpdate(text, from, secret) {
  const now = Date.now();
  const user = Number(from);
  const update = {
    update_id: Math.floor(now / 10) % 2_000_000_000,
    message: {
      message_id: now % 1_000_000,
      from: { id: user, is_bot: false, first_name: "Local", username: "local_user" },
      chat: { id: user, type: "private", first_name: "Local" },
      date: Math.floor(now / 1000),
      text,
    },
  };
  return {
    headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": secret },
    body: JSON.stringify(update),
  };
}

/** A DM `message` event in an Events API envelope, signed as Slack signs it (v0 HMAC-SHA256). */
function slackEvent(text, from, secret) {
  const now = Date.now();
  const ts = `${Math.floor(now / 1000)}.${String(now % 1000).padStart(3, "0")}${String(Math.floor(Math.random() * 1000)).padStart(3, "0")}`;
  const channel = `D${from.replace(/^U/, "")}`;
  const body = JSON.stringify({
    token: "legacy-verification-token",
    team_id: "T0TEST",
    api_app_id: "A0TEST",
    type: "event_callback",
    event_id: `Ev${now}`,
    event_time: Math.floor(now / 1000),
    event: { type: "message", channel, channel_type: "im", user: from, text, ts, event_ts: ts, team: "T0TEST" },
  });
  const at = Math.floor(now / 1000);
  const signature = `v0=${createHmac("sha256", secret).update(`v0:${at}:${body}`).digest("hex")}`;
  return {
    headers: {
      "content-type": "application/json",
      "x-slack-signature": signature,
      "x-slack-request-timestamp": String(at),
    },
    body,
  };
}

/** A 1:1 text message event in a webhook batch, signed as LINE signs it (base64 HMAC-SHA256 of the body). */
function lineEvent(text, from, secret) {
  const now = Date.now();
  const id = `${now}${String(Math.floor(Math.random() * 1000)).padStart(3, "0")}`;
  const body = JSON.stringify({
    destination: "Ubot0000000000000000000000000000b",
    events: [
      {
        type: "message",
        mode: "active",
        timestamp: now,
        webhookEventId: `01EV${id}`,
        deliveryContext: { isRedelivery: false },
        source: { type: "user", userId: from },
        replyToken: `rt-${id}`,
        message: { id, type: "text", quoteToken: `q-${id}`, text },
      },
    ],
  });
  const signature = createHmac("sha256", secret).update(body).digest("base64");
  return { headers: { "content-type": "application/json", "x-line-signature": signature }, body };
}

/** Has the fake (`/__send`) sign and post `payload` to the service as its platform would; stops on a refusal. */
async function postThroughFake(fakeUrl, url, payload, fakeLabel, name) {
  let res;
  try {
    res = await fetch(`${fakeUrl}/__send`, { method: "POST", body: JSON.stringify(payload) });
  } catch (error) {
    fail(`no ${fakeLabel} on ${fakeUrl} (${error.cause?.code ?? error.message}): start npm run fake -- ${name}`);
  }
  const answer = await res.json();
  if (answer.error) fail(`${answer.error}: is npm run dev running, and BASE right?`);
  console.log(`POST ${url} → ${answer.status}${answer.body ? ` ${answer.body}` : ""}`);
  if (answer.status >= 300) fail(`the service answered ${answer.status}`);
}

/** Teams: the fake signs and posts the activity itself (its own key), then the bot's activities are read back. */
async function msTeamsSend(url, fakeUrl, text, from, since) {
  const now = Date.now();
  const activity = {
    type: "message",
    id: String(now),
    conversation: { id: `a:local-${from}`, conversationType: "personal" },
    from: { id: `29:${from}`, aadObjectId: from, name: "Local" },
    recipient: { id: `28:${PLATFORMS.msteams.appId}`, name: "OpenClaw" },
    text,
  };
  await postThroughFake(fakeUrl, url, { url, activity }, "fake Bot Connector", "msteams");
  const deadline = Date.now() + Number(options.wait ?? DEFAULT_WAIT_SECONDS) * 1000;
  while (Date.now() < deadline) {
    const replies = ((await fakeCalls(fakeUrl, since)) ?? []).filter((call) => call.kind === "activity");
    if (replies.some((call) => call.body.type === "message")) {
      for (const reply of replies)
        console.log(`← ${reply.body.type} to ${reply.conversationId}: ${reply.body.text ?? ""}`);
      return;
    }
    await new Promise((done) => setTimeout(done, POLL_INTERVAL_MS));
  }
  fail("no reply activity at the fake in time (npm run dev's log says why)");
}

/** Google Chat: the fake signs and posts a DM event itself (its own key); the reply is read back from its log. */
async function googleChatSend(url, fakeUrl, text, from, since) {
  const now = Date.now();
  const space = {
    name: `spaces/DM${from.replace(/\D/g, "")}`,
    type: "DM",
    spaceType: "DIRECT_MESSAGE",
    singleUserBotDm: true,
  };
  const user = { name: from, displayName: "Local", email: "local@example.com", type: "HUMAN" };
  const message = { name: `${space.name}/messages/m${now}.m${now}`, sender: user, text, argumentText: text, space };
  const event = { type: "MESSAGE", eventTime: new Date(now).toISOString(), space, message, user };
  await postThroughFake(fakeUrl, url, { url, event }, "fake Google", "googlechat");
  const deadline = Date.now() + Number(options.wait ?? DEFAULT_WAIT_SECONDS) * 1000;
  while (Date.now() < deadline) {
    const calls = ((await fakeCalls(fakeUrl, since)) ?? []).filter(
      (call) => (call.kind === "create" || call.kind === "update") && call.status === 200,
    );
    // The answer is the placeholder's edit, or a created message that is not the placeholder (a pairing code).
    if (calls.some((call) => call.kind === "update" || !/^_.* is typing\.\.\._$/.test(call.body.text))) {
      for (const call of calls) console.log(`← ${call.method} ${call.path}: ${call.body.text}`);
      return;
    }
    await new Promise((done) => setTimeout(done, POLL_INTERVAL_MS));
  }
  fail("no reply at the fake Chat API in time (npm run dev's log says why)");
}

/** What `serve` prints about the credentials the fake takes. */
function credentialLines(name, p, port) {
  if (name === "googlechat")
    return `audience  ${p.audience}   (the project number the fake signs its events for)
  serviceAccount  the key the fake made: curl -s ${p.apiRoot(port)}/__service-account`;
  if (name === "msteams")
    return `appId     ${p.appId}\n  appPassword  ${p.token}   (the fake's login takes only these; it signs activities with its own key)`;
  return `${p.tokenKey ?? "botToken"}  ${p.token}   (${name === "slack" ? "any token works here" : "the fake answers only this token"})
  ${p.secretKey ?? (name === "telegram" ? "webhookSecret" : "signingSecret")}  ${p.secret}   (what "npm run fake -- ${name} send" uses)`;
}
