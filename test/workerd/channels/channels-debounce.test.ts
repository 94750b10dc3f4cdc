import { describe, expect, inject, it } from "vitest";
import { call, freshTenant, type TestTenant, until, untilInboxHandled } from "../support/helpers";
import { postTelegramUpdate } from "../support/telegram-helpers";

/**
 * Inbound debounce (issue 46, 5): two Telegram DMs 50 ms apart are one turn `quick one\nquick
 * two` with one reply, as the real gateway 2026.9.6 answered them; a command is never held and
 * comes after the text held before it; `messages.inbound.debounceMs: 0` turns it off. The
 * inbox, the session and the outbox are real; the Bot API is the test peer's (`/telegram`).
 */

const SECRET = "tg-webhook-secret-debounce-0123";
let nextUpdateId = 940_000;

function dm(text: string, from = 555400, updateId = nextUpdateId++) {
  return {
    update_id: updateId,
    message: {
      message_id: updateId,
      from: { id: from, is_bot: false, first_name: "Ada", username: "ada" },
      chat: { id: from, type: "private" },
      date: Math.floor(Date.now() / 1000),
      text,
    },
  };
}

async function debounceTenant(messages?: unknown): Promise<TestTenant> {
  const t = await freshTenant("debounce");
  const put = await t.config({
    ...(messages ? { messages } : {}),
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
  return t;
}

type Delivery = { status: string; message: string };
async function delivered(t: TestTenant, count: number): Promise<Delivery[]> {
  return until(
    async () => {
      const res = await t.call(`/v1/sessions/${encodeURIComponent("agent:main:main")}/deliveries`);
      return ((res.data.deliveries ?? []) as Delivery[]).filter((d) => d.status === "delivered");
    },
    (sent) => sent.length >= count,
  );
}

async function userTexts(t: TestTenant): Promise<string[]> {
  const res = await call(`${t.prefix}/sessions/${encodeURIComponent("agent:main:main")}/history`, { token: t.token });
  expect(res.status, res.text).toBe(200);
  return (res.data.messages as Array<{ role: string; content: unknown }>)
    .filter((m) => m.role === "user")
    .map((m) =>
      typeof m.content === "string" ? m.content : (m.content as Array<{ text?: string }>).map((p) => p.text).join(""),
    );
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("inbound debounce", () => {
  it("two DMs 50 ms apart are one turn with both texts and one reply; a redelivery adds nothing", async () => {
    const t = await debounceTenant({ inbound: { debounceMs: 1500 } });
    const first = dm("quick one");
    await postTelegramUpdate(t, SECRET, first);
    await pause(50);
    await postTelegramUpdate(t, SECRET, dm("quick two"));
    await postTelegramUpdate(t, SECRET, first); // redelivered inside the window
    await untilInboxHandled(t, 2);
    expect(await userTexts(t)).toEqual(["quick one\nquick two"]);
    const sent = await delivered(t, 1);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.message).toContain("quick one\nquick two");
    const runs = await t.call(`/v1/sessions/${encodeURIComponent("agent:main:main")}/runs`);
    expect(runs.status, runs.text).toBe(200);
    expect(JSON.stringify(runs.data)).toContain(`telegram:${first.update_id}`);
  });

  it("a command is never held: the text before it is answered first, then the command, each once", async () => {
    const t = await debounceTenant({ inbound: { debounceMs: 5000 } });
    await postTelegramUpdate(t, SECRET, dm("hello there"));
    await postTelegramUpdate(t, SECRET, dm("/status"));
    // The command flushed the held text at once: no 5 s wait.
    await untilInboxHandled(t, 2);
    expect(await userTexts(t)).toEqual(["hello there", "/status"]);
    expect(await delivered(t, 2)).toHaveLength(2);
  });

  it("debounceMs 0 (OpenClaw's key) answers each DM on its own", async () => {
    const t = await debounceTenant({ inbound: { debounceMs: 0 } });
    await postTelegramUpdate(t, SECRET, dm("one"));
    await postTelegramUpdate(t, SECRET, dm("two"));
    await untilInboxHandled(t, 2);
    expect(await userTexts(t)).toEqual(["one", "two"]);
    expect(await delivered(t, 2)).toHaveLength(2);
  });

  it("a window past the ceiling is refused with a clear error", async () => {
    const t = await freshTenant("debounce-cap");
    const put = await t.config({ messages: { inbound: { byChannel: { telegram: 60_000 } } } });
    expect(put.status).toBe(400);
    expect(put.data.ok).toBe(false);
    expect(put.text).toContain("at most 10000 ms");
  });
});
