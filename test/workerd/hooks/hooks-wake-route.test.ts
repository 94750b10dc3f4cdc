import { describe, expect, inject, it } from "vitest";
import { call, freshTenant, until } from "../support/helpers";

/**
 * `/hooks/wake` (mode now) runs the main session, and its reply reaches the chat the session last
 * came in on, as OpenClaw's heartbeat posts it to `lastChannel`/`lastTo` (peer SPEC §2.3). The
 * Bot API is the test peer's (`/telegram`).
 */

const SECRET = "tg-webhook-secret-wake-0123456";
const HOOK_TOKEN = "wake-hook-token-0123456789abcdef";

describe("/hooks/wake", () => {
  it("delivers the main session's wake reply to its last route (a Telegram DM)", async () => {
    const t = await freshTenant("wake");
    const put = await t.config({
      hooks: { enabled: true, token: HOOK_TOKEN, path: "/hooks" },
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
    const dm = await call(`${t.prefix}/telegram-webhook`, {
      method: "POST",
      token: null,
      headers: { "x-telegram-bot-api-secret-token": SECRET },
      json: {
        update_id: 940_001,
        message: {
          message_id: 7,
          from: { id: 555400, is_bot: false, first_name: "Ada" },
          chat: { id: 555400, type: "private" },
          date: Math.floor(Date.now() / 1000),
          text: "hello",
        },
      },
    });
    expect(dm.status).toBe(200);
    const key = "agent:main:main";
    const delivered = async () => {
      const res = await t.call(`/v1/sessions/${encodeURIComponent(key)}/deliveries`);
      return ((res.data.deliveries ?? []) as Array<{ status: string; target: { to: string } }>).filter(
        (d) => d.status === "delivered",
      );
    };
    await until(delivered, (list) => list.length === 1);

    const wake = await call(`${t.prefix}/hooks/wake`, {
      method: "POST",
      token: null,
      headers: { authorization: `Bearer ${HOOK_TOKEN}` },
      json: { text: "Build 42 finished", mode: "now" },
    });
    expect([wake.status, wake.data]).toEqual([200, { ok: true, mode: "now", eventOutcome: "queued" }]);
    const after = await until(delivered, (list) => list.length === 2);
    expect(after.map((d) => d.target.to)).toEqual(["telegram:555400", "telegram:555400"]);
  }, 60_000);
});
