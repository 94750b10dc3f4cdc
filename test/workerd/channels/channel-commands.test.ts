import { describe, expect, inject, it } from "vitest";
import { HELP_TEXT, STOP_REPLY } from "../../../src/domain/chat-commands";
import { call, freshTenant, type TestTenant, until, untilInboxHandled } from "../support/helpers";
import { postSlackEvent, slackPeerTenant } from "../support/slack-helpers";
import { postTelegramUpdate } from "../support/telegram-helpers";

/**
 * Chat commands typed into Telegram run through the same layer as `chat.send` (issue 46, 1):
 * answered without the model, the reply delivered to the chat through the outbox once, `/new`
 * resetting the transcript, `/cmd@thisbot` a mention and `/cmd@otherbot` text for the model. The inbox, the
 * session and the outbox are real; the Bot API is the test peer's (`/telegram`, bot `peer_bot`).
 */

const SECRET = "tg-webhook-secret-commands-0123";
let nextUpdateId = 930_000;

function update(chat: { id: number; type: string }, text: string, updateId = nextUpdateId++) {
  return {
    update_id: updateId,
    message: {
      message_id: updateId,
      from: { id: 555300, is_bot: false, first_name: "Ada", username: "ada" },
      chat,
      date: Math.floor(Date.now() / 1000),
      text,
    },
  };
}

async function commandTenant(): Promise<TestTenant> {
  const t = await freshTenant("cmds");
  const put = await t.config({
    channels: {
      telegram: {
        enabled: true,
        botToken: "42:fake",
        webhookSecret: SECRET,
        apiRoot: `http://127.0.0.1:${inject("peerPort")}/telegram`,
        dmPolicy: "open",
        groupPolicy: "open",
        groups: { "-100700": { requireMention: true }, "-100701": { requireMention: false } },
      },
    },
  });
  expect(put.status, put.text).toBe(200);
  return t;
}

type Delivery = { status: string; message: string; target: { to: string }; blocks?: Array<{ type: string }> };
async function sentOf(t: TestTenant, key: string, count: number): Promise<Delivery[]> {
  return until(
    async () => {
      const res = await t.call(`/v1/sessions/${encodeURIComponent(key)}/deliveries`);
      return ((res.data.deliveries ?? []) as Delivery[]).filter((d) => d.status === "delivered");
    },
    (sent) => sent.length >= count,
  );
}

async function transcript(t: TestTenant, key: string) {
  const res = await call(`${t.prefix}/sessions/${encodeURIComponent(key)}/history`, { token: t.token });
  expect(res.status, res.text).toBe(200);
  return res.data as { sessionId?: string; messages: Array<{ role: string; content: unknown }> };
}

const textOf = (content: unknown) =>
  typeof content === "string" ? content : (content as Array<{ text?: string }>).map((part) => part.text ?? "").join("");

describe("chat commands from Telegram", () => {
  it("a DM's /help and /status are answered without the model, once; /new starts a fresh transcript", async () => {
    const t = await commandTenant();
    const dm = { id: 555300, type: "private" };
    const help = update(dm, "/help");
    await postTelegramUpdate(t, SECRET, help);
    await postTelegramUpdate(t, SECRET, help); // redelivered: one answer
    await postTelegramUpdate(t, SECRET, update(dm, "/status"));
    await untilInboxHandled(t, 2);
    const key = "agent:main:main";
    const sent = await sentOf(t, key, 2);
    expect(sent.map((d) => d.target.to)).toEqual(["telegram:555300", "telegram:555300"]);
    // OpenClaw's help text word for word, and its status card (test/unit/domain/chat-command-texts.test.ts: the recording).
    expect(sent.map((d) => d.message).filter((m) => m === HELP_TEXT)).toHaveLength(1);
    const card = sent.find((d) => d.message.startsWith("🦞 OpenClaw "))!.message;
    expect(card).toMatch(
      /^🦞 OpenClaw \S+\nCurrent time: \w+day, .+ \(UTC\)\nReference UTC: \d{4}-\d\d-\d\d \d\d:\d\d UTC\n\n🧠 Model: /,
    );
    expect(card).toContain(`\n🧵 Session: ${key} • duration `);
    expect(card).toContain("\n🎛️ Modes: think off · fast off");
    const before = await transcript(t, key);
    expect(before.messages.map((m) => textOf(m.content))).toContain("/status");

    await postTelegramUpdate(t, SECRET, update(dm, "/new"));
    await untilInboxHandled(t, 3);
    const after = await sentOf(t, key, 3);
    expect(after.map((d) => d.message)).toContain("✅ New session started.");
    const fresh = await transcript(t, key);
    expect(fresh.messages.map((m) => [m.role, textOf(m.content)])).toEqual([
      ["user", "/new"],
      ["assistant", "✅ New session started."],
    ]);
  }, 60_000);

  it("/cmd@thisbot counts as a mention in a group that requires one; /cmd@otherbot is not a command", async () => {
    const t = await commandTenant();
    await postTelegramUpdate(t, SECRET, update({ id: -100700, type: "supergroup" }, "/status@peer_bot"));
    await postTelegramUpdate(t, SECRET, update({ id: -100701, type: "supergroup" }, "/help@other_bot"));
    await postTelegramUpdate(t, SECRET, update({ id: -100700, type: "supergroup" }, "/help"));
    await untilInboxHandled(t, 3);
    const key = "agent:main:telegram:group:-100700";
    const sent = await sentOf(t, key, 1);
    expect(sent.map((d) => [d.target.to, d.message.split("\n")[0]!.slice(0, 11)])).toEqual([
      ["telegram:-100700", "🦞 OpenClaw"],
    ]);
    expect(sent[0]!.message).toContain(`🧵 Session: ${key} • `);
    // Another bot's command is text for the model (as OpenClaw 2026.9.6 answers it in an open group).
    const other = await sentOf(t, "agent:main:telegram:group:-100701", 1);
    expect(other[0]!.message).not.toBe(HELP_TEXT);
  }, 60_000);
});

describe("/whoami from a chat", () => {
  it("answers OpenClaw's identity card without the model: the sender in a DM, the chat in a group", async () => {
    const t = await commandTenant();
    await postTelegramUpdate(t, SECRET, update({ id: 555300, type: "private" }, "/whoami"));
    await postTelegramUpdate(t, SECRET, update({ id: -100700, type: "supergroup" }, "/whoami@peer_bot"));
    await untilInboxHandled(t, 2);
    const dm = await sentOf(t, "agent:main:main", 1);
    // The recorded reply of OpenClaw 2026.9.6 to its user 777001, with this test's sender.
    expect(dm.map((d) => d.message)).toEqual([
      "🧭 Identity\nChannel: telegram\nUser id: 555300\nUsername: @ada\nAllowFrom: 555300",
    ]);
    const group = await sentOf(t, "agent:main:telegram:group:-100700", 1);
    expect(group.map((d) => d.message)).toEqual([
      "🧭 Identity\nChannel: telegram\nUser id: 555300\nUsername: @ada\nChat: telegram:group:-100700\nAllowFrom: 555300",
    ]);
  }, 60_000);
});

describe("/stop from a chat", () => {
  it("stops the session's running run and answers OpenClaw's text, once; the stopped run posts nothing", async () => {
    const t = await freshTenant("cmds-stop");
    const put = await t.config({
      // A model that never answers: the DM's run stays running until stopped.
      agents: {
        list: [
          {
            id: "main",
            default: true,
            runner: { type: "openai", baseUrl: `http://127.0.0.1:${inject("peerPort")}/v1`, model: "hang" },
          },
        ],
      },
      channels: {
        telegram: {
          enabled: true,
          botToken: "42:fake",
          webhookSecret: SECRET,
          apiRoot: `http://127.0.0.1:${inject("peerPort")}/telegram`,
          dmPolicy: "open",
        },
      },
    });
    expect(put.status, put.text).toBe(200);
    const dm = { id: 555300, type: "private" };
    const hello = update(dm, "a long question");
    await postTelegramUpdate(t, SECRET, hello);
    const runId = `telegram:${hello.update_id}`;
    await until(
      async () => (await t.call(`/v1/runs/${encodeURIComponent(runId)}`)).data.run,
      (run) => run?.status === "running",
    );
    const stop = update(dm, "/stop");
    await postTelegramUpdate(t, SECRET, stop);
    await postTelegramUpdate(t, SECRET, stop); // redelivered: one answer
    await untilInboxHandled(t, 2);
    const key = "agent:main:main";
    const sent = await sentOf(t, key, 1);
    expect(sent.map((d) => [d.target.to, d.message])).toEqual([["telegram:555300", STOP_REPLY]]);
    const stopped = await until(
      async () => (await t.call(`/v1/runs/${encodeURIComponent(runId)}`)).data.run,
      (run) => run !== undefined && run.status !== "running",
    );
    expect(stopped.status).toBe("aborted");
    // Nothing else was queued for the chat: the stopped run has no reply to post.
    const all = (await t.call(`/v1/sessions/${encodeURIComponent(key)}/deliveries`)).data.deliveries as Delivery[];
    expect(all.map((d) => d.message)).toEqual([STOP_REPLY]);
  }, 60_000);
});

describe("chat commands from Slack", () => {
  const SLACK_SECRET = "slack-signing-secret-commands-0123456789";
  const postSlack = (t: TestTenant, event: Record<string, unknown>, eventId: string) =>
    postSlackEvent(t, SLACK_SECRET, event, eventId);

  it("a DM's /new and a channel's `<@bot> /status` are answered without the model", async () => {
    const t = await slackPeerTenant("cmds-slack", SLACK_SECRET, { dmPolicy: "open", groupPolicy: "open" });
    const dm = { type: "message", channel: "D0ALICE", channel_type: "im", user: "U0ALICE" };
    await postSlack(t, { ...dm, text: "/new", ts: "1795705000.000100" }, "EvC1");
    const channel = { type: "message", channel: "C0OPEN", channel_type: "channel", user: "U0ALICE" };
    await postSlack(t, { ...channel, text: "<@U0BOT> /status", ts: "1795705000.000200" }, "EvC2");
    const sent = await sentOf(t, "agent:main:main", 1);
    expect(sent.map((d) => [d.target.to, d.message])).toEqual([["user:U0ALICE", "✅ New session started."]]);
    const key = "agent:main:slack:channel:c0open";
    const status = await sentOf(t, key, 1);
    expect(status.map((d) => d.target.to)).toEqual(["channel:C0OPEN"]);
    // OpenClaw's Slack card: the table as fallback text, and Block Kit blocks in the delivery record
    // and on the wire (one chat.postMessage with `blocks` and `mrkdwn: "false"`, as recorded).
    expect(status[0]!.message).toContain(`\n\nSession status (table)\nItem\tValue\n🧠 Model\t`);
    expect(status[0]!.message).toContain(`\n🧵 Session\t${key} • duration `);
    const blockTypes = ["header", "context", "data_table"];
    expect(status[0]!.blocks?.map((block) => block.type)).toEqual(blockTypes);
    const posts = await until(
      async () =>
        (await (
          await fetch(`http://127.0.0.1:${inject("peerPort")}/control/recorded?path=/slack/api/chat.postMessage`)
        ).json()) as Array<{
          body: Record<string, string>;
        }>,
      (all) => all.some((post) => post.body.text === status[0]!.message),
    );
    const post = posts.find((p) => p.body.text === status[0]!.message)!.body;
    expect(post).toMatchObject({ channel: "C0OPEN", mrkdwn: "false", unfurl_links: "false" });
    const blocks = JSON.parse(post.blocks!) as Array<{ type: string; rows?: unknown[][] }>;
    expect(blocks.map((block) => block.type)).toEqual(blockTypes);
    expect(blocks[2]!.rows![1]).toEqual([
      { type: "raw_text", text: "🧠 Model" },
      { type: "raw_text", text: expect.any(String) },
    ]);
    // The DM's `/new` is plain text: no blocks.
    expect(sent[0]).not.toHaveProperty("blocks");
  }, 60_000);

  it("/commands answers OpenClaw's unpaged list (this service's commands), no keyboard (Telegram's pages: channel-commands-pages.test.ts)", async () => {
    const t = await slackPeerTenant("cmds-slack-list", SLACK_SECRET, { dmPolicy: "open" });
    const dm = { type: "message", channel: "D0ALICE", channel_type: "im", user: "U0ALICE" };
    await postSlack(t, { ...dm, text: "/commands", ts: "1795705002.000100" }, "EvL1");
    const sent = await sentOf(t, "agent:main:main", 1);
    // The whole text is test/unit/domain/chat-command-texts.test.ts's; here: the chat gets it.
    expect(sent[0]!.message).toMatch(/^ℹ️ Slash commands\n\nSession\n {2}\/stop - Stop the current run\.\n/);
    expect(sent[0]!.message).toContain("\n  /whoami (/id) - Show your sender id.\n");
    expect(sent[0]).not.toHaveProperty("blocks");
  }, 60_000);

  it("a DM's /whoami names the Slack user", async () => {
    const t = await slackPeerTenant("cmds-slack-who", SLACK_SECRET, { dmPolicy: "open" });
    const dm = { type: "message", channel: "D0ALICE", channel_type: "im", user: "U0ALICE" };
    await postSlack(t, { ...dm, text: "/whoami", ts: "1795705001.000100" }, "EvW1");
    const sent = await sentOf(t, "agent:main:main", 1);
    expect(sent.map((d) => d.message)).toEqual(["🧭 Identity\nChannel: slack\nUser id: U0ALICE\nAllowFrom: U0ALICE"]);
  }, 60_000);
});
