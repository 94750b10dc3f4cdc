import { describe, expect, it } from "vitest";
import { inboundMessages } from "../../../src/features/channels/whatsapp/events";
import { markdownToWhatsapp, whatsappPairingMessage } from "../../../src/features/channels/whatsapp/format";
import { parseWhatsappTarget } from "../../../src/features/channels/whatsapp/graph-api";
import { decideWhatsapp } from "../../../src/features/channels/whatsapp/routing";
import {
  subscriptionChallenge,
  verifyWhatsappSignature,
  whatsappSignature,
} from "../../../src/features/channels/whatsapp/signature";

const APP_SECRET = "wa-app-secret-0123456789abcdef";

function webhook(messages: unknown[], extra: Record<string, unknown> = {}) {
  return {
    object: "whatsapp_business_account",
    entry: [
      {
        id: "WABA1",
        changes: [
          {
            field: "messages",
            value: {
              messaging_product: "whatsapp",
              metadata: { display_phone_number: "15550001111", phone_number_id: "PN1" },
              contacts: [{ profile: { name: "Ana" }, wa_id: "15551234567" }],
              messages,
              ...extra,
            },
          },
        ],
      },
    ],
  };
}
const text = (id: string, body: string, from = "15551234567") => ({
  id,
  from,
  timestamp: "1795900000",
  type: "text",
  text: { body },
});

describe("WhatsApp signature and subscription check", () => {
  it("accepts Meta's sha256 HMAC of exactly the raw body, nothing else", async () => {
    const body = JSON.stringify(webhook([text("wamid.1", "hi")]));
    const header = await whatsappSignature(APP_SECRET, body);
    expect(header).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(await verifyWhatsappSignature(APP_SECRET, header, body)).toBe(true);
    expect(await verifyWhatsappSignature(APP_SECRET, header.toUpperCase().replace("SHA256", "sha256"), body)).toBe(
      true,
    );
    expect(await verifyWhatsappSignature(APP_SECRET, header, `${body} `)).toBe(false);
    expect(await verifyWhatsappSignature("another-secret", header, body)).toBe(false);
    expect(await verifyWhatsappSignature(APP_SECRET, null, body)).toBe(false);
    expect(await verifyWhatsappSignature(APP_SECRET, "sha1=abc", body)).toBe(false);
  });

  it("answers the challenge only for subscribe with the tenant's verify token", async () => {
    const ok = { mode: "subscribe", token: "my-verify-token", challenge: "1158201444" };
    expect(await subscriptionChallenge(ok, "my-verify-token")).toBe("1158201444");
    expect(await subscriptionChallenge({ ...ok, token: "wrong" }, "my-verify-token")).toBeNull();
    expect(await subscriptionChallenge({ ...ok, mode: "unsubscribe" }, "my-verify-token")).toBeNull();
    expect(await subscriptionChallenge({ ...ok, challenge: null }, "my-verify-token")).toBeNull();
  });
});

describe("WhatsApp webhook bodies", () => {
  it("splits a body into its messages, names the sender from contacts, skips statuses", () => {
    const body = webhook([text("wamid.1", "one"), text("wamid.2", "two"), { bogus: true }], {
      statuses: [{ id: "wamid.out", status: "delivered" }],
    });
    const inbound = inboundMessages(body)!;
    expect(inbound.map((m) => m.message.id)).toEqual(["wamid.1", "wamid.2"]);
    expect(inbound[0]).toMatchObject({ senderName: "Ana", phoneNumberId: "PN1" });
    const statusesOnly = webhook([]);
    expect(inboundMessages(statusesOnly)).toEqual([]);
    expect(inboundMessages({ object: "page", entry: [] })).toBeNull();
    expect(inboundMessages([1, 2])).toBeNull();
  });
});

describe("WhatsApp routing (OpenClaw's dmPolicy over E.164 numbers)", () => {
  const base = (over: Partial<Parameters<typeof decideWhatsapp>[0]> = {}) =>
    decideWhatsapp({
      inbound: inboundMessages(webhook([text("wamid.1", "hello")]))![0]!,
      whatsapp: { dmPolicy: "pairing" },
      config: {},
      agentId: "main",
      approved: new Set(),
      ...over,
    });

  it("asks an unknown sender to pair, with its E.164 number", () => {
    const decision = base();
    expect(decision).toMatchObject({ action: "pairing", ask: { senderId: "+15551234567", chatId: "+15551234567" } });
  });

  it("turns an approved or listed sender's message into a turn on the main session, replying to the number", () => {
    for (const over of [
      { approved: new Set(["+15551234567"]) },
      { whatsapp: { dmPolicy: "allowlist" as const, allowFrom: ["+1 (555) 123-4567"] } },
      { whatsapp: { dmPolicy: "open" as const, allowFrom: ["*"] } },
    ]) {
      const decision = base(over);
      expect(decision.action).toBe("turn");
      if (decision.action !== "turn") continue;
      expect(decision.turn).toMatchObject({
        sessionKey: "agent:main:main",
        text: "hello",
        senderId: "+15551234567",
        replyTarget: { channel: "whatsapp", to: "+15551234567", accountId: "default" },
      });
    }
  });

  it("keys per-channel-peer DMs by the number; ignores other numbers, empty texts, disabled DMs", () => {
    const perPeer = base({ approved: new Set(["+15551234567"]), config: { session: { dmScope: "per-channel-peer" } } });
    expect(perPeer.action === "turn" && perPeer.turn.sessionKey).toBe("agent:main:whatsapp:direct:+15551234567");
    expect(base({ whatsapp: { dmPolicy: "allowlist", allowFrom: ["+1999"] } }).action).toBe("ignore");
    expect(base({ whatsapp: { dmPolicy: "disabled" } }).action).toBe("ignore");
    expect(base({ whatsapp: { dmPolicy: "open", phoneNumberId: "PN-OTHER" } }).action).toBe("ignore");
    const sticker = inboundMessages(
      webhook([{ id: "wamid.s", from: "15551234567", type: "sticker", sticker: {} }]),
    )![0]!;
    expect(base({ inbound: sticker, whatsapp: { dmPolicy: "open" } }).action).toBe("ignore");
  });
});

describe("WhatsApp replies", () => {
  it("renders Markdown in WhatsApp's markup", () => {
    expect(markdownToWhatsapp("# Title\n**bold** and *it* and ~~gone~~ `co*de*`\n- item\n[site](https://x.test)")).toBe(
      "*Title*\n*bold* and _it_ and ~gone~ `co*de*`\n• item\nsite (https://x.test)",
    );
    expect(markdownToWhatsapp("```js\nconst a = **1**;\n```")).toBe("```\nconst a = **1**;\n```");
  });

  it("parses the targets OpenClaw writes for WhatsApp", () => {
    expect(parseWhatsappTarget({ channel: "whatsapp", to: "+15551234567" })).toBe("15551234567");
    expect(parseWhatsappTarget({ channel: "whatsapp", to: "whatsapp:+15551234567" })).toBe("15551234567");
    expect(parseWhatsappTarget({ channel: "whatsapp", to: "group:abc" })).toBeNull();
  });

  it("names the number and this service's way to approve in the pairing message", () => {
    const message = whatsappPairingMessage("+15551234567", "ABCD2345");
    expect(message).toContain("Your WhatsApp phone number: +15551234567");
    expect(message).toContain('POST /v1/channels/whatsapp/pairing/approve {"code":"ABCD2345"}');
  });
});
