import { describe, expect, it } from "vitest";
import { lineEnvelope, lineRowFields } from "../../../src/features/channels/line/context";
import type { LineEvent } from "../../../src/features/channels/line/events";
import { lineLocation, lineMessageText } from "../../../src/features/channels/line/message-text";
import { decideLine, withLineNames } from "../../../src/features/channels/line/routing";
import { nameCache } from "../../../src/features/channels/name-cache";

/** LINE turns as OpenClaw's LINE plugin (2026.9.5) tells them: stickers, locations, names (issue 46). */

const ALICE = "U1111111111111111111111111111aaaa";
const GROUP = "C2222222222222222222222222222open";

const message = (fields: Record<string, unknown>) => ({ id: "m1", type: "text", ...fields }) as LineEvent["message"];

describe("lineMessageText", () => {
  it("a sticker: its own text, else up to three keywords, else bare", () => {
    expect(lineMessageText(message({ type: "sticker", keywords: ["Happy", " ", "Joy", "Smile", "Grin"] }))).toBe(
      "[Sent a sticker: Happy, Joy, Smile]",
    );
    expect(lineMessageText(message({ type: "sticker", text: "hello!", keywords: ["Happy"] }))).toBe(
      "[Sent a sticker: hello!]",
    );
    expect(lineMessageText(message({ type: "sticker", packageId: "1", stickerId: "1" }))).toBe("[Sent a sticker]");
  });

  it("a location: its coordinates to six decimals; the place goes to the envelope", () => {
    const shared = message({
      type: "location",
      title: "Tokyo Tower",
      address: "Minato",
      latitude: 35.65858,
      longitude: 139.745433,
    });
    expect(lineMessageText(shared)).toBe("📍 35.658580, 139.745433");
    expect(lineLocation(shared)).toEqual({
      latitude: 35.65858,
      longitude: 139.745433,
      source: "place",
      name: "Tokyo Tower",
      address: "Minato",
    });
    expect(lineLocation(message({ type: "location", latitude: 1, longitude: 2 }))).toEqual({
      latitude: 1,
      longitude: 2,
      source: "pin",
    });
    // Without coordinates it is no place: not a turn.
    expect(lineMessageText(message({ type: "location", title: "somewhere" }))).toBe("");
  });

  it("text and files as before; other types are no text", () => {
    expect(lineMessageText(message({ text: "hi" }))).toBe("hi");
    expect(lineMessageText(message({ type: "image", contentProvider: { type: "line" } }))).toBe("[media: image]");
    expect(lineMessageText(message({ type: "imagemap" }))).toBe("");
  });
});

describe("a LINE turn's names", () => {
  const event = (source: Record<string, unknown>): LineEvent => ({
    type: "message",
    timestamp: 1795911643000,
    source: source as LineEvent["source"],
    message: message({ text: "hi" }),
  });

  it("a DM: the envelope's sender and the row named from the profile; unknown, both left out", () => {
    const dm = event({ type: "user", userId: ALICE });
    expect(lineEnvelope({ event: dm, senderId: ALICE, names: { sender: "User aaaa" }, mentioned: false })).toEqual({
      chatId: `line:${ALICE}`,
      messageId: "m1",
      timestampMs: 1795911643000,
      sender: { id: ALICE, name: "User aaaa" },
    });
    // The recorded row (line-dm-pairing, dm-approved).
    expect(lineRowFields(ALICE, undefined, { sender: "User aaaa" }, "default")).toEqual({
      displayName: "User aaaa",
      origin: {
        label: "User aaaa",
        provider: "line",
        surface: "line",
        chatType: "direct",
        from: `line:${ALICE}`,
        to: `line:${ALICE}`,
        accountId: "default",
      },
    });
    expect(lineEnvelope({ event: dm, senderId: ALICE, names: {}, mentioned: false }).sender).toEqual({ id: ALICE });
    expect(lineRowFields(ALICE, undefined, {}, "default")).toEqual({});
  });

  it("a group: label and subject its summary's name, else OpenClaw's `group:<id>` and the id", () => {
    const chat = { kind: "group" as const, id: GROUP };
    const inGroup = event({ type: "group", groupId: GROUP, userId: ALICE });
    expect(
      lineEnvelope({ event: inGroup, senderId: ALICE, chat, names: { group: "Group open" }, mentioned: true }),
    ).toMatchObject({
      chatId: `line:group:${GROUP}`,
      group: { label: "Group open", subject: "Group open" },
      mentioned: true,
    });
    expect(lineEnvelope({ event: inGroup, senderId: ALICE, chat, names: {}, mentioned: false }).group).toEqual({
      label: `group:${GROUP}`,
      subject: GROUP,
    });
    // The recorded row (line-groups, group-open).
    expect(lineRowFields(ALICE, chat, { sender: "Member aaaa", group: "Group open" }, "default")).toEqual({
      displayName: "Group open",
      subject: "Group open",
      origin: {
        label: "Group open",
        provider: "line",
        surface: "line",
        chatType: "group",
        from: `line:group:${GROUP}`,
        to: `line:group:${GROUP}`,
        accountId: "default",
      },
    });
  });

  it("withLineNames names a decided turn without deciding it again, and leaves other decisions", () => {
    const inGroup = event({ type: "group", groupId: GROUP, userId: ALICE });
    const decided = decideLine({
      event: inGroup,
      line: { groupPolicy: "open", groups: { "*": { requireMention: false } } },
      config: {},
      agentId: "main",
      approved: new Set(),
    });
    const named = withLineNames(decided, inGroup, { sender: "Member aaaa", group: "Group open" });
    expect(named.action).toBe("turn");
    if (named.action !== "turn") return;
    expect(named.turn.envelope?.sender).toEqual({ id: ALICE, name: "Member aaaa" });
    expect(named.turn.seed).toMatchObject({
      channel: "line",
      chatType: "group",
      displayName: "Group open",
      subject: "Group open",
      deliveryContext: { channel: "line", to: `line:group:${GROUP}`, accountId: "default" },
    });
    const ignored = { action: "ignore" as const, reason: "no mention" };
    expect(withLineNames(ignored, inGroup, { sender: "x" })).toBe(ignored);
  });
});

describe("nameCache", () => {
  it("keeps a name for its time, bounded, the least recently named dropped first; a miss for its own", async () => {
    // A miss kept for 0 ms (the window itself: name-cache.test.ts).
    const cache = nameCache({ maxEntries: 2, ttlMs: 60_000, lookupTimeoutMs: 60_000, missTtlMs: 0 });
    let calls = 0;
    const look = (name: string | undefined) => async () => {
      calls++;
      return name;
    };
    expect(await cache.get("a", look("A"))).toBe("A");
    expect(await cache.get("a", look("other"))).toBe("A");
    expect(calls).toBe(1);
    expect(await cache.get("b", look(undefined))).toBeUndefined();
    expect(await cache.get("b", look("B"))).toBe("B");
    expect(await cache.get("c", look("C"))).toBe("C");
    // Past two entries, "a" (named first) went.
    expect(await cache.get("a", look("A2"))).toBe("A2");
    expect(await cache.get("x", async () => Promise.reject(new Error("down")))).toBeUndefined();
    expect(await cache.get("long", look("n".repeat(300)))).toHaveLength(256);
  });

  it("does not wait for a hung lookup past its deadline; the late name serves the next turn", async () => {
    const cache = nameCache({ maxEntries: 10, ttlMs: 60_000, lookupTimeoutMs: 10 });
    let answer: (name: string) => void = () => undefined;
    const hung = new Promise<string>((resolve) => {
      answer = resolve;
    });
    expect(await cache.get("slow", () => hung)).toBeUndefined();
    answer("Slow Name");
    await hung;
    expect(await cache.get("slow", async () => "asked again")).toBe("Slow Name");
  });
});
