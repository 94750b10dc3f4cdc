// The channels bench's platforms that only this service serves here (no OpenClaw plugin or
// loopback harness for them in this repo, so no real-gateway side): WhatsApp Cloud API, LINE and
// Google Chat, each against its fake (test/peers/fake-*.mjs) as the e2e files configure and sign
// it. Each entry gives the fake to start, the tenant's `channels.<name>` block, and what the
// suite's driver needs: the message to POST, its signature headers, and which call at the fake is
// the reply. `BENCH_CHANNELS_<NAME>=off` skips one.
import { createHmac } from "node:crypto";
import { join } from "node:path";
import { FAKE_LINE_BOT, FAKE_LINE_TOKEN, startFakeLine } from "../../test/peers/fake-line.mjs";
import { whatsappTextWebhook } from "../../test/peers/whatsapp-webhook.mjs";
import { startFakeApi } from "./channel-peers.mjs";

const WA_ACCESS_TOKEN = "EAAG-fake-whatsapp-access-token";
const WA_APP_SECRET = "wa-app-secret-0123456789abcdef";
const WA_PHONE_NUMBER_ID = "106540352242922";
const WA_USER = "15551234567";
const LINE_CHANNEL_SECRET = "line-channel-secret-0123456789ab";
const LINE_USER = "U1111111111111111111111111111aaaa";
const GC_AUDIENCE = "123456789012";
const GC_BOT_USER = "users/999000999";
const GC_DM_SPACE = "spaces/DMbench";
const GC_SENDER = { name: "users/111000111", displayName: "Bench", email: "bench@example.com", type: "HUMAN" };
/** The placeholder the Google Chat reply starts as; the PATCH with the reply text is the arrival. */
const GC_PLACEHOLDER = "_OpenClaw is typing..._";
const REAL_GATEWAY_MISSING = "no OpenClaw plugin or loopback harness for it in this repo";

let nextId = Date.now() % 1_000_000_000;
const hmacSha256 = (secret, body, encoding) => createHmac("sha256", secret).update(body).digest(encoding);

/** The fake LINE runs in this process (it has no ready line for startFakeApi); its call stamp is `at`. */
async function startLineFake() {
  const fake = await startFakeLine(0);
  const url = `http://127.0.0.1:${fake.port}`;
  return {
    url,
    async calls(since = 0) {
      const res = await fetch(`${url}/__calls?since=${since}`);
      return (await res.json()).calls.map((c) => ({ ...c, t: c.at }));
    },
    stop: fake.close,
  };
}

const whatsapp = {
  env: "BENCH_CHANNELS_WHATSAPP",
  start: (peers) =>
    startFakeApi(join(peers, "fake-whatsapp.mjs"), { env: { WA_TOKEN: WA_ACCESS_TOKEN }, label: "fake WhatsApp" }),
  config: async (fake) => ({
    whatsapp: {
      enabled: true,
      mode: "cloud",
      phoneNumberId: WA_PHONE_NUMBER_ID,
      accessToken: WA_ACCESS_TOKEN,
      appSecret: WA_APP_SECRET,
      verifyToken: "wa-verify-token-0123456789",
      apiRoot: `${fake.url}/v23.0`,
      dmPolicy: "open",
      allowFrom: ["*"],
    },
  }),
  channel: async () => ({
    name: "WhatsApp message → Graph API text",
    path: "/whatsapp/webhook",
    build: (text) =>
      whatsappTextWebhook({ phoneNumberId: WA_PHONE_NUMBER_ID, from: WA_USER, id: `wamid.BENCH${nextId++}`, text }),
    headers: (body) => ({ "x-hub-signature-256": `sha256=${hmacSha256(WA_APP_SECRET, body, "hex")}` }),
    isReply: (c) => c.method === "text" && c.body?.to === WA_USER && c.status === 200,
  }),
};

const line = {
  env: "BENCH_CHANNELS_LINE",
  start: startLineFake,
  config: async (fake) => ({
    line: {
      enabled: true,
      channelAccessToken: FAKE_LINE_TOKEN,
      channelSecret: LINE_CHANNEL_SECRET,
      apiRoot: fake.url,
      dmPolicy: "open",
      allowFrom: ["*"],
    },
  }),
  channel: async () => ({
    name: "LINE message event → reply",
    path: "/line/webhook",
    /** One text message event from a 1:1 chat, with a fresh reply token. */
    build: (text) => {
      const id = String(nextId++);
      return {
        destination: FAKE_LINE_BOT.userId,
        events: [
          {
            type: "message",
            mode: "active",
            timestamp: Date.now(),
            webhookEventId: `01BENCH${id}`,
            deliveryContext: { isRedelivery: false },
            source: { type: "user", userId: LINE_USER },
            replyToken: `rt-bench-${id}`,
            message: { id, type: "text", quoteToken: `q-${id}`, text },
          },
        ],
      };
    },
    headers: (body) => ({ "x-line-signature": hmacSha256(LINE_CHANNEL_SECRET, body, "base64") }),
    isReply: (c) => /\/message\/(reply|push)$/.test(c.path) && c.status === 200,
    callName: (c) => c.path.replace("/v2/bot/", ""),
  }),
};

const googlechat = {
  env: "BENCH_CHANNELS_GOOGLECHAT",
  start: (peers) =>
    startFakeApi(join(peers, "fake-googlechat.mjs"), { env: { GC_AUDIENCE }, label: "fake Google Chat" }),
  config: async (fake) => ({
    googlechat: {
      enabled: true,
      serviceAccount: await (await fetch(`${fake.url}/__service-account`)).json(),
      audienceType: "project-number",
      audience: GC_AUDIENCE,
      botUser: GC_BOT_USER,
      dmPolicy: "open",
      allowFrom: ["*"],
      apiRoot: fake.url,
      tokenUrl: `${fake.url}/token`,
      certsUrl: `${fake.url}/service_accounts/v1/metadata/x509/chat@system.gserviceaccount.com`,
    },
  }),
  channel: async (fake) => {
    // Google's token is an hour long: one signed by the fake's key serves the whole run.
    const res = await fetch(`${fake.url}/__sign`, { method: "POST", body: "{}" });
    const bearer = `Bearer ${(await res.json()).token}`;
    const space = { name: GC_DM_SPACE, type: "DM", spaceType: "DIRECT_MESSAGE", singleUserBotDm: true };
    return {
      name: "Google Chat MESSAGE → reply PATCH",
      path: "/googlechat",
      /** A DM MESSAGE event in Google's recorded shape. */
      build: (text) => {
        const id = `m${nextId++}`;
        const message = {
          name: `${GC_DM_SPACE}/messages/${id}.${id}`,
          sender: GC_SENDER,
          createTime: new Date().toISOString(),
          text,
          argumentText: text,
          thread: { name: `${GC_DM_SPACE}/threads/t${id}` },
          space,
        };
        return { type: "MESSAGE", eventTime: new Date().toISOString(), space, message, user: GC_SENDER };
      },
      headers: () => ({ authorization: bearer }),
      isReply: (c) => c.kind === "update" && c.status === 200 && c.body?.text !== GC_PLACEHOLDER,
      callName: (c) => c.kind,
    };
  },
};

/** The platforms served here only, those not switched off by their env variable. */
export function servedOnlyPlatforms(env = process.env) {
  return [whatsapp, line, googlechat].filter((p) => env[p.env] !== "off");
}

export { REAL_GATEWAY_MISSING };
