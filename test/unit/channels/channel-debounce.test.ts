import { describe, expect, it } from "vitest";
import type { ChannelTurn } from "../../../src/features/channels/adapter";
import {
  burstDueAt,
  DEFAULT_INBOUND_DEBOUNCE_MS,
  debounceKey,
  inboundDebounceMs,
  isDebounceable,
  mergedTurn,
} from "../../../src/features/channels/debounce";
import { INBOUND_DEBOUNCE_MAX_MS, tenantConfigSchema } from "../../../src/protocol/config";

const turn = (text: string, over: Partial<ChannelTurn> = {}): ChannelTurn => ({
  sessionKey: "agent:main:main",
  text,
  seed: {},
  replyTarget: { channel: "telegram", to: "telegram:501" },
  senderId: "501",
  ack: { chatId: "501" },
  ...over,
});

describe("inbound debounce (OpenClaw's messages.inbound)", () => {
  it("takes byChannel over debounceMs over the default, bounded by the ceiling", () => {
    expect(inboundDebounceMs({}, "telegram")).toBe(DEFAULT_INBOUND_DEBOUNCE_MS);
    expect(inboundDebounceMs({}, "slack")).toBe(DEFAULT_INBOUND_DEBOUNCE_MS);
    expect(inboundDebounceMs({}, "whatsapp")).toBe(0);
    expect(inboundDebounceMs({ messages: { inbound: { debounceMs: 800 } } }, "line")).toBe(800);
    expect(inboundDebounceMs({ messages: { inbound: { debounceMs: 1500 } } }, "telegram")).toBe(1500);
    const both = { messages: { inbound: { debounceMs: 1500, byChannel: { slack: 0 } } } };
    expect(inboundDebounceMs(both, "slack")).toBe(0);
    expect(inboundDebounceMs(both, "telegram")).toBe(1500);
    expect(inboundDebounceMs({ messages: { inbound: { debounceMs: 10 ** 9 } } }, "telegram")).toBe(
      INBOUND_DEBOUNCE_MAX_MS,
    );
  });

  it("the config schema takes OpenClaw's keys and refuses a window past the ceiling", () => {
    const ok = tenantConfigSchema.safeParse({
      messages: { inbound: { debounceMs: 2000, byChannel: { slack: 1500 } } },
    });
    expect(ok.success).toBe(true);
    const tooLong = tenantConfigSchema.safeParse({
      messages: { inbound: { debounceMs: INBOUND_DEBOUNCE_MAX_MS + 1 } },
    });
    expect(tooLong.success).toBe(false);
    expect(JSON.stringify(tooLong.error?.issues)).toContain("at most 10000 ms");
    expect(tenantConfigSchema.safeParse({ messages: { inbound: { debounceMs: -1 } } }).success).toBe(false);
    expect(tenantConfigSchema.safeParse({ messages: { inbound: { windowMs: 5 } } }).success).toBe(false);
  });

  it("holds plain text only: never a command, media, a button press or an empty text", () => {
    expect(isDebounceable(turn("quick one"))).toBe(true);
    expect(isDebounceable(turn("/status"))).toBe(false);
    expect(isDebounceable(turn("/new hello"))).toBe(false);
    expect(isDebounceable(turn("/stop"))).toBe(false);
    expect(isDebounceable(turn("/notacommand here"))).toBe(true);
    expect(
      isDebounceable(
        turn("[media: photo 1×1 image/jpeg]\nlook", {
          media: [{ kind: "photo", fileId: "f" }] as unknown as ChannelTurn["media"],
        }),
      ),
    ).toBe(false);
    expect(isDebounceable(turn("callback_data: btn:yes", { ack: { chatId: "501", callbackQueryId: "q" } }))).toBe(
      false,
    );
    expect(isDebounceable(turn(" "))).toBe(false);
  });

  it("keys a burst by channel, chat, thread and sender", () => {
    const a = debounceKey("telegram", turn("x"));
    expect(debounceKey("telegram", turn("y"))).toBe(a);
    expect(debounceKey("slack", turn("x"))).not.toBe(a);
    expect(debounceKey("telegram", turn("x", { senderId: "502" }))).not.toBe(a);
    const topic = turn("x", { replyTarget: { channel: "telegram", to: "telegram:501", threadId: 7 } });
    expect(debounceKey("telegram", topic)).not.toBe(a);
  });

  it("merges the texts with \\n and keeps the last message's route and acknowledgement", () => {
    const first = turn("quick one", { ack: { chatId: "501", reactToMessageId: 1 } });
    const second = turn("quick two", { ack: { chatId: "501", reactToMessageId: 2 } });
    const merged = mergedTurn([first, second]);
    expect(merged.text).toBe("quick one\nquick two");
    expect(merged.ack.reactToMessageId).toBe(2);
    expect(mergedTurn([first])).toBe(first);
    expect(burstDueAt(1_000, 300)).toBe(1_300);
  });
});
