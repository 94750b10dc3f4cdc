import { describe, expect, inject, it } from "vitest";
import { call, freshTenant, until } from "../support/helpers";
import { scriptedReplyAgents } from "../support/scripted-reply";

/**
 * The parts of one long reply go out paced as OpenClaw paces them (about a second apart,
 * ../shared/peer/channels/SPEC.md §3.6), on the outbox's timer: each part is recorded as sent
 * before the next is due, so none goes twice. Times are the peer's own clock when it received
 * each `sendMessage` (test/peers/peer-server.ts).
 */

const SECRET = "tg-webhook-secret-pacing-0123456";
const peer = `http://127.0.0.1:${inject("peerPort")}`;
const LONG_REPLY = `${"a".repeat(3999)}\n${"b".repeat(3999)}\nccc`;

type Sent = { body: { chat_id: string; text: string }; at: number };

describe("a long Telegram reply", () => {
  it("goes out in its three parts, in order, at least a second apart, each once", async () => {
    const scenario = `pacing-${crypto.randomUUID()}`;
    const t = await freshTenant("pacing");
    const put = await t.config({
      agents: await scriptedReplyAgents(scenario, LONG_REPLY),
      channels: {
        telegram: {
          enabled: true,
          botToken: "42:fake",
          webhookSecret: SECRET,
          apiRoot: `${peer}/telegram`,
          dmPolicy: "open",
        },
      },
    });
    expect(put.status, put.text).toBe(200);
    const chatId = 700_000 + Math.floor(Math.random() * 99_999);
    const res = await call(`${t.prefix}/telegram-webhook`, {
      method: "POST",
      token: null,
      headers: { "x-telegram-bot-api-secret-token": SECRET },
      json: {
        update_id: chatId,
        message: {
          message_id: 1,
          from: { id: chatId, is_bot: false, first_name: "Pace" },
          chat: { id: chatId, type: "private" },
          date: Math.floor(Date.now() / 1000),
          text: "tell me a long story",
        },
      },
    });
    expect(res.status).toBe(200);
    const sentToChat = async () =>
      ((await (await fetch(`${peer}/control/recorded?path=/telegram/sendMessage`)).json()) as Sent[]).filter(
        (sent) => String(sent.body.chat_id) === String(chatId),
      );
    const sent = await until(sentToChat, (all) => all.length >= 3, 30_000);
    expect(sent.map((s) => s.body.text[0])).toEqual(["a", "b", "c"]);
    const gaps = sent.slice(1).map((s, i) => s.at - sent[i]!.at);
    for (const gap of gaps) {
      // OpenClaw's pace (1 s) as the floor; a loaded machine may only make it longer.
      expect(gap).toBeGreaterThanOrEqual(990);
      expect(gap).toBeLessThan(15_000);
    }
    const deliveries = await until(
      async () =>
        (await t.call("/v1/sessions/agent%3Amain%3Amain/deliveries")).data.deliveries as Array<{
          status: string;
        }>,
      (all) => all.some((d) => d.status === "delivered"),
    );
    expect(deliveries.map((d) => d.status)).toEqual(["delivered"]);
    // Delivered, and no part went again.
    expect(await sentToChat()).toHaveLength(3);
  }, 60_000);
});
