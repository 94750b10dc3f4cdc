import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, inject, it } from "vitest";
import { BotThreadsStore } from "../../../src/features/channels/slack/bot-threads-store";
import { BOT_THREAD_TTL_MS } from "../../../src/features/channels/slack/threads";
import { type TestTenant, until, untilInboxHandled } from "../support/helpers";
import { postSlackEvent, slackPeerTenant } from "../support/slack-helpers";

/**
 * Slack thread follow-ups (issue 46, 4): in a channel that requires a mention, a reply in a
 * thread of the bot's without a new `<@bot>` is answered in the thread (👀, `thread_ts`, session
 * `…:thread:<thread_ts>`), as OpenClaw's Slack monitor answers it: under the bot's own message
 * (`parent_user_id`) or in a thread the bot posted in; a thread the bot never posted in is not
 * answered. Real inbox, session and outbox; the Web API is the test peer's (`/slack/api/`, which
 * records posts and reactions).
 */

const SECRET = "slack-signing-secret-threads-0123456789";
const CHANNEL = "C0MENTION";
const BASE_KEY = "agent:main:slack:channel:c0mention";
const peer = () => `http://127.0.0.1:${inject("peerPort")}`;

async function threadTenant(): Promise<TestTenant> {
  return slackPeerTenant("slack-threads", SECRET, {
    groupPolicy: "allowlist",
    channels: { [CHANNEL]: { requireMention: true } },
  });
}

let nextEvent = 0;
const postEvent = (t: TestTenant, event: Record<string, unknown>) =>
  postSlackEvent(t, SECRET, event, `EvT${++nextEvent}`);

/** A message in the channel from Alice; `thread` makes it a reply in that thread. */
function message(ts: string, text: string, thread?: { ts: string; parent: string }) {
  return {
    type: "message",
    channel: CHANNEL,
    channel_type: "channel",
    user: "U0ALICE",
    text,
    ts,
    ...(thread ? { thread_ts: thread.ts, parent_user_id: thread.parent } : {}),
  };
}

type Delivery = { status: string; message: string; target: { to: string; threadId?: string } };
async function deliveries(t: TestTenant, key: string): Promise<Delivery[]> {
  const res = await t.call(`/v1/sessions/${encodeURIComponent(key)}/deliveries`);
  return (res.data.deliveries ?? []) as Delivery[];
}
async function delivered(t: TestTenant, key: string, count: number): Promise<Delivery[]> {
  return until(
    async () => (await deliveries(t, key)).filter((d) => d.status === "delivered"),
    (sent) => sent.length >= count,
  );
}

type Recorded = { path: string; body: Record<string, string> };
async function slackCalls(method: string): Promise<Recorded[]> {
  return (await (await fetch(`${peer()}/control/recorded?path=/slack/api/${method}`)).json()) as Recorded[];
}

/** Unique message timestamps per test run (the peer is shared by every test file). */
const base = Math.floor(Date.now() / 1000);
const ts = (n: number) => `${base}.${String(n).padStart(6, "0")}`;

describe("Slack thread follow-ups", () => {
  it("a reply under the bot's own message, without a mention, is answered in the thread once, with 👀", async () => {
    const t = await threadTenant();
    const root = ts(100); // the bot's message (Slack names its poster in `parent_user_id`)
    const reply = message(ts(101), "and a follow-up", { ts: root, parent: "U0BOT" });
    await postEvent(t, reply);
    await postEvent(t, reply); // redelivered under a new event id: still one turn
    await untilInboxHandled(t, 1, "slack");
    const key = `${BASE_KEY}:thread:${root}`;
    const sent = await delivered(t, key, 1);
    expect(sent.map((d) => [d.target.to, d.target.threadId, d.message])).toEqual([
      [`channel:${CHANNEL}`, root, "ECHO: and a follow-up"],
    ]);
    const post = (await slackCalls("chat.postMessage")).find((p) => p.body.text === "ECHO: and a follow-up")!;
    expect(post.body).toMatchObject({ channel: CHANNEL, thread_ts: root });
    const eyes = (await slackCalls("reactions.add")).filter((r) => r.body.timestamp === ts(101));
    expect(eyes.map((r) => [r.body.channel, r.body.name])).toEqual([[CHANNEL, "eyes"]]);
    // The channel's own session got nothing: the follow-up is the thread's.
    expect(await deliveries(t, BASE_KEY)).toEqual([]);
  }, 60_000);

  it("a thread the bot answered a mention in is followed up; a thread it never posted in is not", async () => {
    const t = await threadTenant();
    const userRoot = ts(200); // Alice's own message starts the thread
    await postEvent(t, message(ts(201), "<@U0BOT> look at this", { ts: userRoot, parent: "U0ALICE" }));
    await untilInboxHandled(t, 1, "slack");
    const key = `${BASE_KEY}:thread:${userRoot}`;
    await delivered(t, key, 1); // the bot posted in the thread
    await postEvent(t, message(ts(202), "thanks, and one more", { ts: userRoot, parent: "U0ALICE" }));
    await untilInboxHandled(t, 2, "slack");
    const sent = await delivered(t, key, 2);
    expect(sent.map((d) => d.message).sort()).toEqual(["ECHO: <@U0BOT> look at this", "ECHO: thanks, and one more"]);
    expect(sent.every((d) => d.target.threadId === userRoot)).toBe(true);

    // Another thread of Alice's the bot never posted in: no turn, no 👀, no reply.
    const otherRoot = ts(300);
    await postEvent(t, message(ts(301), "just between us", { ts: otherRoot, parent: "U0ALICE" }));
    await untilInboxHandled(t, 3, "slack");
    expect(await deliveries(t, `${BASE_KEY}:thread:${otherRoot}`)).toEqual([]);
    expect((await slackCalls("reactions.add")).filter((r) => r.body.timestamp === ts(301))).toEqual([]);
    const sessions = await t.call("/v1/sessions?limit=50");
    expect(JSON.stringify(sessions.data)).not.toContain(otherRoot);
  }, 60_000);

  it("the bot's threads are bounded: forgotten after 24 hours, the oldest dropped past the row cap", async () => {
    await runInDurableObject(env.CHANNEL_INBOX.getByName("slack-threads-bounds"), (_object, state) => {
      const threads = new BotThreadsStore(state.storage.sql, 3);
      const at = 1_800_000_000_000;
      threads.note("C1", "1.0", at);
      expect(threads.has("C1", "1.0", at + BOT_THREAD_TTL_MS - 1)).toBe(true);
      expect(threads.has("C1", "1.0", at + BOT_THREAD_TTL_MS)).toBe(false);
      expect(threads.has("C2", "1.0", at)).toBe(false); // another channel's thread of the same ts
      for (let n = 2; n <= 4; n++) threads.note("C1", `${n}.0`, at + n);
      expect(["1.0", "2.0", "3.0", "4.0"].map((ts) => threads.has("C1", ts, at + 10))).toEqual([
        false,
        true,
        true,
        true,
      ]);
      // Posting again keeps a thread: the oldest other one goes.
      threads.note("C1", "2.0", at + 20);
      threads.note("C1", "5.0", at + 21);
      expect(["2.0", "3.0", "4.0", "5.0"].map((ts) => threads.has("C1", ts, at + 30))).toEqual([
        true,
        false,
        true,
        true,
      ]);
      // An expired thread is deleted on the next note.
      threads.note("C1", "6.0", at + BOT_THREAD_TTL_MS + 100);
      const rows = state.storage.sql.exec("SELECT thread_ts FROM slack_bot_threads ORDER BY thread_ts").toArray();
      expect(rows.map((row) => row.thread_ts)).toEqual(["6.0"]);
    });
  });
});
