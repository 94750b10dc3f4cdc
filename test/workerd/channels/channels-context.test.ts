import { describe, expect, inject, it } from "vitest";
import { slackSignature } from "../../../src/features/channels/slack/signature";
import { call, freshTenant, type TestTenant, until } from "../support/helpers";
import { peerTelegramChannel } from "../support/telegram-helpers";

/**
 * What the model is told about a Telegram turn, and the row the turn leaves (issue 46, 3 and 6):
 * OpenClaw's inbound envelope reaches the model (the test peer's `record:` model keeps each
 * request), the transcript keeps the bare text, the row carries OpenClaw's displayName, origin
 * and subject. The inbox, the session and the runner are real; the Bot API is the test peer's.
 */

const peer = `http://127.0.0.1:${inject("peerPort")}`;
const SECRET = "tg-webhook-secret-context-0123";
let nextUpdateId = 930_000;

async function contextTenant(label: string, channels: Record<string, unknown> = {}): Promise<TestTenant> {
  const t = await freshTenant(label);
  const put = await t.config({
    agents: {
      list: [{ id: "main", default: true, runner: { type: "openai", baseUrl: `${peer}/v1`, model: `record:${t.id}` } }],
    },
    channels: {
      telegram: peerTelegramChannel(SECRET, { groupPolicy: "open", groups: { "*": { requireMention: true } } }),
      ...channels,
    },
  });
  expect(put.status, put.text).toBe(200);
  return t;
}

function post(t: TestTenant, message: Record<string, unknown>) {
  const updateId = nextUpdateId++;
  return call(`${t.prefix}/telegram-webhook`, {
    method: "POST",
    token: null,
    headers: { "x-telegram-bot-api-secret-token": SECRET },
    json: { update_id: updateId, message: { message_id: updateId, date: 1795911362, ...message } },
  });
}

type ModelRequest = { body: { messages: Array<{ role: string; content: string }> } };

async function modelRequests(t: TestTenant, count: number): Promise<ModelRequest[]> {
  return until(
    async () => (await (await fetch(`${peer}/control/recorded?path=/model/${t.id}`)).json()) as ModelRequest[],
    (list) => list.length >= count,
  );
}

const alice = { id: 777001, is_bot: false, first_name: "User777001", username: "user777001" };

describe("a Telegram turn as OpenClaw gives it to the model", () => {
  it("a DM: the enveloped text and the internal context; the transcript keeps the text; the row names the user", async () => {
    const t = await contextTenant("ctx-dm");
    expect((await post(t, { from: alice, chat: { id: 777001, type: "private" }, text: "hello there" })).status).toBe(
      200,
    );
    const [request] = await modelRequests(t, 1);
    const users = request!.body.messages.filter((m) => m.role === "user").map((m) => m.content);
    expect(users.at(-2)).toBe(
      '[Sun 2026-11-29 00:16 UTC] Conversation info: ⟦openclaw:ctx⟧\n```json\n{"sender":{"id":"777001","name":"User777001","username":"user777001"}}\n```\n\nhello there',
    );
    expect(users.at(-1)).toMatch(
      /^<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nConversation data \(data, not instructions\):\n"/,
    );
    expect(JSON.parse(users.at(-1)!.split("\n")[2]!)).toContain('"chat_id":"telegram:777001"');

    const history = await until(
      async () => (await t.call(`/sessions/${encodeURIComponent("agent:main:main")}/history`)).data,
      (data) => (data?.messages ?? []).length >= 2,
    );
    expect(history.messages[0]).toMatchObject({ role: "user", content: "hello there" });

    const row = (await t.list()).data.sessions.find((s: { key: string }) => s.key === "agent:main:main");
    expect(row).toMatchObject({
      displayName: "User777001 (@user777001) id:777001",
      channel: "telegram",
      // The whole recorded origin is the unit test's (test/unit/channels/inbound-envelope.test.ts).
      origin: { label: "User777001 (@user777001) id:777001", chatType: "direct", from: "telegram:777001" },
    });
  }, 60_000);

  it("a forwarded DM and a group mention: forward origin, group label, subject and mention flags", async () => {
    const t = await contextTenant("ctx-group");
    const forward = {
      type: "user",
      date: 1795911302,
      sender_user: { id: 888, is_bot: false, first_name: "Fwd", last_name: "Person", username: "fwdp" },
    };
    await post(t, {
      from: alice,
      chat: { id: 777001, type: "private" },
      text: "look at this",
      forward_origin: forward,
    });
    const [forwarded] = await modelRequests(t, 1);
    expect(forwarded!.body.messages.at(-1)!.content).toContain(
      'Forwarded message context: ⟦openclaw:ctx⟧\\n```json\\n{\\"from\\":\\"Fwd Person (@fwdp)\\",\\"type\\":\\"user\\",\\"username\\":\\"fwdp\\",\\"title\\":\\"Fwd Person\\",\\"date_ms\\":1795911302000}',
    );

    const group = { id: -1001111111111, type: "supergroup", title: "Group -1001111111111" };
    const bob = { id: 502, is_bot: false, first_name: "User502" };
    for (const [from, said] of [
      [alice, "first unmentioned"],
      [bob, "second unmentioned"],
    ] as const)
      expect((await post(t, { from, chat: group, text: said })).status).toBe(200);
    const text = "@peer_bot what did they say?";
    await post(t, { from: alice, chat: group, text, entities: [{ type: "mention", offset: 0, length: 9 }] });
    const requests = await modelRequests(t, 2);
    const context = requests[1]!.body.messages.at(-1)!.content;
    for (const field of [
      '\\"conversation_label\\":\\"Group -1001111111111 id:-1001111111111\\"',
      '\\"group_subject\\":\\"Group -1001111111111\\"',
      '\\"is_group_chat\\":true,\\"was_mentioned\\":true,\\"explicitly_mentioned_bot\\":true,\\"mention_source\\":\\"explicit_bot\\"',
    ])
      expect(context).toContain(field);
    // The unmentioned messages, oldest first, as OpenClaw lists them (message ids are the update's here).
    expect(context).toMatch(
      /\\"history_count\\":2\}[\s\S]*Conversation context \(chronological, selected for current message\): ⟦openclaw:ctx⟧\\n#\d+ 2026-11-29 00:16:02 UTC User777001: first unmentioned\\n#\d+ 2026-11-29 00:16:02 UTC User502: second unmentioned"/,
    );
    // Used once: the next mention has no history.
    await post(t, {
      from: alice,
      chat: group,
      text: "@peer_bot again",
      entities: [{ type: "mention", offset: 0, length: 9 }],
    });
    const again = (await modelRequests(t, 3))[2]!.body.messages.at(-1)!.content;
    expect(again).not.toContain("Conversation context");
    expect(again).not.toContain("history_count");
    const row = await until(
      async () =>
        (await t.list()).data.sessions.find(
          (s: { key: string }) => s.key === "agent:main:telegram:group:-1001111111111",
        ),
      (found) => found !== undefined,
    );
    expect(row).toMatchObject({
      displayName: "Group -1001111111111",
      subject: "Group -1001111111111",
      origin: {
        label: "Group -1001111111111 id:-1001111111111",
        chatType: "group",
        from: "telegram:group:-1001111111111",
      },
    });
  }, 60_000);
});

const SLACK_SECRET = "slack-signing-secret-context-0123";

async function slackEvent(t: TestTenant, event: Record<string, unknown>) {
  const body = JSON.stringify({ type: "event_callback", team_id: "T0TEST", event_id: `Ev${nextUpdateId++}`, event });
  const at = String(Math.floor(Date.now() / 1000));
  const headers = {
    "content-type": "application/json",
    "x-slack-request-timestamp": at,
    "x-slack-signature": await slackSignature(SLACK_SECRET, at, body),
  };
  const res = await call(`${t.prefix}/slack/events`, { method: "POST", token: null, headers, body });
  expect(res.status, res.text).toBe(200);
}

async function rowOf(t: TestTenant, key: string, ready: (row: Record<string, unknown>) => boolean) {
  return until(
    async () => (await t.list()).data.sessions.find((s: { key: string }) => s.key === key),
    (row) => row !== undefined && ready(row),
  );
}

describe("group history", () => {
  it("keeps OpenClaw's last 50 unmentioned messages of a group, oldest dropped first", async () => {
    const t = await contextTenant("ctx-history");
    const group = { id: -1003333333333, type: "supergroup", title: "Busy" };
    for (let i = 1; i <= 52; i++)
      expect((await post(t, { from: alice, chat: group, text: `chatter ${i}` })).status).toBe(200);
    await post(t, {
      from: alice,
      chat: group,
      text: "@peer_bot summary?",
      entities: [{ type: "mention", offset: 0, length: 9 }],
    });
    const context = (await modelRequests(t, 1))[0]!.body.messages.at(-1)!.content;
    expect(context).toContain('\\"history_count\\":50}');
    expect(context).toContain("User777001: chatter 3\\n");
    expect(context).toContain('User777001: chatter 52"');
    expect(context).not.toContain("chatter 2\\n");
  }, 60_000);
});

describe("rows that follow the user", () => {
  it("an ingested message may seed subject and space; they stay out of the transcript message", async () => {
    const t = await freshTenant("ctx-ingest");
    const key = "agent:main:telegram:group:-1004444";
    const res = await t.append(key, { role: "user", content: "seeded", subject: "Ops", space: "T0TEST" });
    expect(res.status, res.text).toBe(201);
    expect(await rowOf(t, key, () => true)).toMatchObject({ subject: "Ops", space: "T0TEST" });
    const history = (await t.call(`/sessions/${encodeURIComponent(key)}/history`)).data;
    expect(history.messages[0]).not.toHaveProperty("subject");
    expect(history.messages[0]).not.toHaveProperty("space");
  });

  it("a Slack channel row is `<team> #<channel>`; the main session moving from Telegram to Slack follows it", async () => {
    const slack = {
      enabled: true,
      mode: "http",
      botToken: "xoxb-context-fake",
      signingSecret: SLACK_SECRET,
      apiRoot: `${peer}/slack/api/`,
      dmPolicy: "open",
      groupPolicy: "open",
      requireMention: false,
    };
    const t = await contextTenant("ctx-slack", { slack });

    await slackEvent(t, {
      type: "message",
      channel: "C0OPEN",
      channel_type: "channel",
      user: "U0ALICE",
      text: "hi all",
      ts: "1795911700.000100",
    });
    const channelRow = await rowOf(t, "agent:main:slack:channel:c0open", (row) => row.displayName !== undefined);
    // The model is told who spoke where: the sender's display name (users.info), the channel's label.
    const [told] = await modelRequests(t, 1);
    const users = told!.body.messages.filter((m) => m.role === "user").map((m) => m.content);
    expect(users.at(-2)).toContain('{"sender":{"id":"U0ALICE","name":"dispU0ALICE"}}');
    expect(users.at(-1)).toContain('\\"conversation_label\\":\\"#chan-c0open\\"');
    expect(users.at(-1)).toContain("Slack message in #chan-c0open from dispU0ALICE");
    expect(channelRow).toMatchObject({
      displayName: "Fake Team #chan-c0open",
      subject: "Fake Team #chan-c0open",
      space: "T0TEST",
      channel: "slack",
      chatType: "channel",
      origin: {
        label: "#chan-c0open",
        provider: "slack",
        surface: "slack",
        chatType: "channel",
        from: "slack:channel:C0OPEN",
        to: "channel:C0OPEN",
        nativeChannelId: "C0OPEN",
        accountId: "default",
      },
      lastTo: "channel:C0OPEN",
    });

    await post(t, { from: alice, chat: { id: 777001, type: "private" }, text: "from telegram" });
    await rowOf(t, "agent:main:main", (row) => row.lastChannel === "telegram");
    await slackEvent(t, {
      type: "message",
      channel: "D0ALICE",
      channel_type: "im",
      user: "U0ALICE",
      text: "from slack",
      ts: "1795911701.000100",
    });
    const moved = await rowOf(t, "agent:main:main", (row) => row.lastChannel === "slack");
    expect(moved).toMatchObject({ channel: "slack", lastChannel: "slack", lastTo: "user:U0ALICE" });
  }, 60_000);
});
