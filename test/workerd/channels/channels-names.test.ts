import { describe, expect, inject, it } from "vitest";
import { LINE_SIGNATURE_HEADER, lineSignature } from "../../../src/features/channels/line/signature";
import { call, type TestTenant, until } from "../support/helpers";
import { recordingModelTenant } from "../support/recording-model";
import { postSlackEvent } from "../support/slack-helpers";

/**
 * Who is speaking, by name (issue 46, 3, 6 and 8): a Slack DM's row named as OpenClaw's (the
 * sender's `users.info` name, its origin) and its links unescaped for the model; LINE turns named
 * from the profile API (a DM's profile, a group member's profile and the group's summary) in the
 * model's envelope and the row, a failed lookup leaving the name out but not the turn; LINE
 * stickers and locations as turns. The webhooks, inbox, session and runner are real; the
 * platform APIs and the model are the test peer's (test/peers/peer-server.ts).
 */

const peer = `http://127.0.0.1:${inject("peerPort")}`;
const SLACK_SECRET = "slack-signing-secret-names-0123";
const LINE_SECRET = "line-channel-secret-names-0123";
let nextEvent = 0;

type ModelRequest = { body: { messages: Array<{ role: string; content: unknown }> } };

/** The user messages of the model's `n`-th request (1-based): the enveloped text, then the internal context. */
async function toldModel(t: TestTenant, n: number): Promise<string[]> {
  const requests = await until(
    async () => (await (await fetch(`${peer}/control/recorded?path=/model/${t.id}`)).json()) as ModelRequest[],
    (list) => list.length >= n,
    30_000,
  );
  return requests[n - 1]!.body.messages.filter((m) => m.role === "user").map((m) => String(m.content));
}

async function rowOf(t: TestTenant, key: string, ready: (row: Record<string, unknown>) => boolean) {
  return until(
    async () => (await t.list()).data.sessions.find((s: { key: string }) => s.key === key),
    (row) => row !== undefined && ready(row),
  );
}

function slackEvent(t: TestTenant, event: Record<string, unknown>) {
  return postSlackEvent(t, SLACK_SECRET, event, `EvN${nextEvent++}`);
}

describe("a Slack DM, named", () => {
  it("the row is named as OpenClaw's (users.info name, origin); the model reads the links unescaped", async () => {
    const t = await recordingModelTenant("names-slack", {
      slack: {
        enabled: true,
        mode: "http",
        botToken: "xoxb-names-fake",
        signingSecret: SLACK_SECRET,
        apiRoot: `${peer}/slack/api/`,
        dmPolicy: "open",
      },
    });
    // The recorded message of chat46-slack's dm-hello.
    const text = "hello <@U0CAROL> see <https://example.com/a?b=1&amp;c=2|the link> and <https://example.com/x>";
    await slackEvent(t, {
      type: "message",
      channel: "D0ALICE",
      channel_type: "im",
      user: "U0ALICE",
      text,
      ts: "1795911643.000001",
    });
    const row = await rowOf(t, "agent:main:main", (r) => r.displayName !== undefined);
    // As recorded (dm-scope, 2026-11-26): the sender's name labels the row and its origin.
    expect(row).toMatchObject({
      displayName: "dispU0ALICE",
      channel: "slack",
      chatType: "direct",
      origin: {
        label: "dispU0ALICE",
        provider: "slack",
        surface: "slack",
        chatType: "direct",
        from: "slack:U0ALICE",
        to: "user:U0ALICE",
        nativeChannelId: "D0ALICE",
        accountId: "default",
      },
      lastTo: "user:U0ALICE",
    });
    const [said] = await toldModel(t, 1);
    expect(said).toMatch(
      /\n\nhello <@U0CAROL> see the link \(https:\/\/example\.com\/a\?b=1&c=2\) and https:\/\/example\.com\/x$/,
    );
  }, 60_000);
});

const ALICE = "U1111111111111111111111111111aaaa";

function lineTenant(label: string) {
  return recordingModelTenant(label, {
    line: {
      enabled: true,
      channelAccessToken: "line-peer-token",
      channelSecret: LINE_SECRET,
      apiRoot: `${peer}/line`,
      dmPolicy: "open",
      groupPolicy: "open",
      groups: { "*": { requireMention: false } },
    },
  });
}

/** Posts one signed LINE message event; returns its message id. */
async function lineMessage(t: TestTenant, source: Record<string, unknown>, message: Record<string, unknown>) {
  const id = `m${Date.now()}${nextEvent++}`;
  const event = {
    type: "message",
    mode: "active",
    timestamp: 1795911643000,
    webhookEventId: `01EV${id}`,
    deliveryContext: { isRedelivery: false },
    source,
    replyToken: `reply-${id}`,
    message: { id, ...message },
  };
  const body = JSON.stringify({ destination: "Ubot", events: [event] });
  const posted = await call(`${t.prefix}/line/webhook`, {
    method: "POST",
    token: null,
    headers: { "content-type": "application/json", [LINE_SIGNATURE_HEADER]: await lineSignature(LINE_SECRET, body) },
    body,
  });
  expect(posted.status, posted.text).toBe(200);
  return id;
}

/** The sends LINE got for a user's 1:1 chat (the event is older than a reply token lives: pushed). */
async function linePushesTo(user: string, count: number) {
  return until(
    async () =>
      (
        (await (await fetch(`${peer}/control/recorded?path=/line/v2/bot/message/push`)).json()) as Array<{
          body: { to?: string };
        }>
      ).filter((c) => c.body.to === user),
    (list) => list.length >= count,
    30_000,
  );
}

describe("LINE turns named from the profile API", () => {
  it("a DM: the profile names the sender in the envelope and the row, as OpenClaw's", async () => {
    const t = await lineTenant("names-line-dm");
    const user = `U${crypto.randomUUID().replaceAll("-", "")}dm01`;
    await lineMessage(t, { type: "user", userId: user }, { type: "text", text: "hello line" });
    const [said, context] = (await toldModel(t, 1)).slice(-2);
    expect(said).toBe(
      `[Sun 2026-11-29 00:20 UTC] Conversation info: ⟦openclaw:ctx⟧\n\`\`\`json\n{"sender":{"id":"${user}","name":"User dm01"}}\n\`\`\`\n\nhello line`,
    );
    expect(context).toContain(`\\"chat_id\\":\\"line:${user}\\"`);
    const row = await rowOf(t, "agent:main:main", (r) => r.displayName !== undefined);
    expect(row).toMatchObject({
      displayName: "User dm01",
      channel: "line",
      chatType: "direct",
      origin: {
        label: "User dm01",
        provider: "line",
        surface: "line",
        chatType: "direct",
        from: `line:${user}`,
        to: `line:${user}`,
        accountId: "default",
      },
      lastTo: `line:${user}`,
    });
    const profiles = await (await fetch(`${peer}/control/recorded?path=/line/v2/bot/profile/${user}`)).json();
    expect(profiles).toHaveLength(1);
    // The name is cached (OpenClaw: 5 minutes): a second message asks no second time.
    await lineMessage(t, { type: "user", userId: user }, { type: "text", text: "again" });
    await toldModel(t, 2);
    expect(await (await fetch(`${peer}/control/recorded?path=/line/v2/bot/profile/${user}`)).json()).toHaveLength(1);
  }, 60_000);

  it("a group: the member profile names the sender, the summary names the group and its row", async () => {
    const t = await lineTenant("names-line-group");
    const group = `C${crypto.randomUUID().replaceAll("-", "")}grp1`;
    await lineMessage(t, { type: "group", groupId: group, userId: ALICE }, { type: "text", text: "hi group" });
    const [said, context] = (await toldModel(t, 1)).slice(-2);
    expect(said).toContain(`{"sender":{"id":"${ALICE}","name":"Member aaaa"}}`);
    for (const field of [
      `\\"chat_id\\":\\"line:group:${group}\\"`,
      '\\"conversation_label\\":\\"Group grp1\\"',
      '\\"group_subject\\":\\"Group grp1\\"',
      '\\"is_group_chat\\":true',
    ])
      expect(context).toContain(field);
    const row = await rowOf(t, `agent:main:line:group:${group.toLowerCase()}`, (r) => r.displayName !== undefined);
    // As recorded (line-groups): the group's name is the row's displayName, subject and origin label.
    expect(row).toMatchObject({
      displayName: "Group grp1",
      subject: "Group grp1",
      chatType: "group",
      origin: {
        label: "Group grp1",
        provider: "line",
        surface: "line",
        chatType: "group",
        from: `line:group:${group}`,
        to: `line:group:${group}`,
        accountId: "default",
      },
    });
    const lookups = (await (
      await fetch(`${peer}/control/recorded?path=/line/v2/bot/group/${group}/`)
    ).json()) as Array<{
      path: string;
      body: { authorization: string };
    }>;
    expect(lookups.map((l) => l.path).sort()).toEqual([
      `/line/v2/bot/group/${group}/member/${ALICE}`,
      `/line/v2/bot/group/${group}/summary`,
    ]);
    expect(lookups.every((l) => l.body.authorization === "Bearer line-peer-token")).toBe(true);
  }, 60_000);

  it("a failed profile call (500) loses no turn: answered, the name left out", async () => {
    const t = await lineTenant("names-line-500");
    const user = `U${crypto.randomUUID().replaceAll("-", "")}f500`;
    const fail = await fetch(`${peer}/control/fail`, {
      method: "POST",
      body: JSON.stringify({ path: `/line/v2/bot/profile/${user}`, times: 1 }),
    });
    expect(fail.status).toBe(200);
    await lineMessage(t, { type: "user", userId: user }, { type: "text", text: "still there?" });
    const [said] = (await toldModel(t, 1)).slice(-2);
    expect(said).toContain(`{"sender":{"id":"${user}"}}`);
    // The record: model echoes what it was told; the reply reaching the chat is what counts here.
    expect(await linePushesTo(user, 1)).toHaveLength(1);
    const row = await rowOf(t, "agent:main:main", (r) => r.lastTo === `line:${user}`);
    expect(row).not.toHaveProperty("displayName");
  }, 60_000);
});

describe("LINE stickers and locations are turns", () => {
  it("a sticker as OpenClaw's text form, a location as its coordinates with the place in the envelope", async () => {
    const t = await lineTenant("names-line-sticker");
    const user = `U${crypto.randomUUID().replaceAll("-", "")}stk1`;
    await lineMessage(
      t,
      { type: "user", userId: user },
      {
        type: "sticker",
        packageId: "446",
        stickerId: "1988",
        stickerResourceType: "STATIC",
        keywords: ["Happy", "Joy", "Smile", "Grin"],
      },
    );
    const [sticker] = (await toldModel(t, 1)).slice(-2);
    expect(sticker).toMatch(/\n\n\[Sent a sticker: Happy, Joy, Smile\]$/);

    await lineMessage(
      t,
      { type: "user", userId: user },
      {
        type: "location",
        title: "Tokyo Tower",
        address: "4-2-8 Shibakoen, Minato",
        latitude: 35.65858,
        longitude: 139.745433,
      },
    );
    const [location, context] = (await toldModel(t, 2)).slice(-2);
    expect(location).toMatch(/\n\n📍 35\.658580, 139\.745433$/);
    expect(context).toContain(
      'Location: ⟦openclaw:ctx⟧\\n```json\\n{\\"latitude\\":35.65858,\\"longitude\\":139.745433,\\"source\\":\\"place\\",\\"name\\":\\"Tokyo Tower\\",\\"address\\":\\"4-2-8 Shibakoen, Minato\\"}',
    );
    const history = await until(
      async () => (await t.call(`/sessions/${encodeURIComponent("agent:main:main")}/history`)).data,
      (data) => (data?.messages ?? []).length >= 4,
    );
    expect(await linePushesTo(user, 2)).toHaveLength(2);
    expect(
      history.messages.filter((m: { role: string }) => m.role === "user").map((m: { content: string }) => m.content),
    ).toEqual(["[Sent a sticker: Happy, Joy, Smile]", "📍 35.658580, 139.745433"]);
  }, 60_000);
});
