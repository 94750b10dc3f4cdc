// The 400-DM burst of issue 46 item 7: one Telegram DM from each of `chats` chats, `inFlight`
// webhook POSTs at a time, against one tenant; every reply's arrival at the fake Bot API.
// Answers the time until every POST was acknowledged, until every reply arrived, and each
// update → reply latency (the fake's arrival stamp minus the POST's start: same clock).
import { runConcurrent, summarize } from "./measure.mjs";

const POLL_MS = 50;

export async function telegramBurst({ url, secret, fake, chats, inFlight, firstChat, deadlineMs, signal }) {
  let cursor = 0;
  for (const c of await fake.calls(0)) cursor = Math.max(cursor, c.seq);
  const sentAt = new Map();
  const repliedAt = new Map();
  let extraReplies = 0;
  const t0 = Date.now();
  let nextUpdateId = (t0 % 1_000_000) * 1000;
  const acks = await runConcurrent({
    concurrency: inFlight,
    total: chats,
    maxSeconds: deadlineMs / 1000,
    signal,
    task: async (i) => {
      const chat = firstChat + i;
      const id = nextUpdateId++;
      const body = JSON.stringify({
        update_id: id,
        message: {
          message_id: id % 1_000_000,
          from: { id: chat, is_bot: false, first_name: `Burst${i}`, username: `burst${i}` },
          chat: { id: chat, type: "private" },
          date: Math.floor(Date.now() / 1000),
          text: `burst ${i}`,
        },
      });
      sentAt.set(chat, Date.now());
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": secret },
        body,
      });
      await res.text();
      if (res.status !== 200) throw Object.assign(new Error(`webhook answered ${res.status}`), { status: res.status });
    },
  });
  const ackedSeconds = (Date.now() - t0) / 1000;
  const deadline = t0 + deadlineMs;
  while (repliedAt.size < sentAt.size && Date.now() < deadline) {
    signal?.throwIfAborted();
    const calls = await fake.calls(cursor);
    for (const c of calls) {
      cursor = Math.max(cursor, c.seq);
      const chat = Number(c.body?.chat_id);
      if (c.method !== "sendMessage" || c.status !== 200 || !sentAt.has(chat)) continue;
      if (repliedAt.has(chat)) extraReplies++;
      else repliedAt.set(chat, c.t);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  const latencies = [...repliedAt].map(([chat, t]) => t - sentAt.get(chat));
  const lastReply = Math.max(...repliedAt.values());
  return {
    posted: sentAt.size,
    postErrors: acks.errors,
    replied: repliedAt.size,
    extraReplies,
    ackedSeconds,
    allRepliesSeconds: repliedAt.size > 0 ? (lastReply - t0) / 1000 : Number.NaN,
    reply: summarize(latencies),
  };
}
