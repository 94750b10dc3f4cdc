import { describe, expect, it } from "vitest";
import {
  type GoogleChatEvent,
  googleChatUpdateId,
  parseGoogleChatEvent,
} from "../../../src/features/channels/googlechat/event";
import {
  decideGoogleChat,
  type GoogleChatAccess,
  googleChatPairingMessage,
} from "../../../src/features/channels/googlechat/routing";

const ALICE = { name: "users/111000111", displayName: "Alice", email: "alice@example.com", type: "HUMAN" };

/** A MESSAGE event shaped like the recorded ones (googlechat-spaces.json, googlechat-dm-pairing.json). */
function messageEvent(
  space: Record<string, unknown>,
  text: string,
  extra: Record<string, unknown> = {},
): GoogleChatEvent {
  const event = parseGoogleChatEvent(
    JSON.stringify({
      type: "MESSAGE",
      space,
      message: { name: `${space.name}/messages/m1.m1`, sender: ALICE, text, argumentText: text, space, ...extra },
      user: ALICE,
    }),
  );
  if (!event) throw new Error("fixture did not parse");
  return event;
}

const DM = { name: "spaces/DMalice", type: "DM", spaceType: "DIRECT_MESSAGE", singleUserBotDm: true };
const OPEN = { name: "spaces/AAAAopen", type: "ROOM", spaceType: "SPACE", displayName: "Team open" };
const MENT = { name: "spaces/AAAAment", type: "ROOM", spaceType: "SPACE", displayName: "Team mention" };
const OTHER = { name: "spaces/ZZZZother", type: "ROOM", spaceType: "SPACE", displayName: "Other" };
const GROUPS = { "spaces/AAAAopen": { requireMention: false }, "spaces/AAAAment": { requireMention: true } };
const MENTION_BOT = {
  annotations: [{ type: "USER_MENTION", userMention: { user: { name: "users/999000999", type: "BOT" } } }],
};

function decide(event: GoogleChatEvent, access: GoogleChatAccess, approved: string[] = []) {
  return decideGoogleChat({ event, access, config: {}, agentId: "main", approved: new Set(approved) });
}

describe("Google Chat events", () => {
  it("parses unknown event types and keys messages by their resource name", () => {
    const added = parseGoogleChatEvent(JSON.stringify({ type: "ADDED_TO_SPACE", space: OPEN, future: 1 }));
    expect(added?.type).toBe("ADDED_TO_SPACE");
    expect(added && googleChatUpdateId(added)).toBeNull();
    expect(googleChatUpdateId(messageEvent(OPEN, "hi"))).toBe("spaces/AAAAopen/messages/m1.m1");
  });

  it("gives null (400 invalid payload) for invalid JSON and {}", () => {
    expect(parseGoogleChatEvent("{not json")).toBeNull();
    expect(parseGoogleChatEvent("{}")).toBeNull();
    expect(parseGoogleChatEvent("[]")).toBeNull();
  });
});

describe("decideGoogleChat (recorded access rules)", () => {
  it("asks an unknown DM sender to pair, with the recorded text and meta", () => {
    const decision = decide(messageEvent(DM, "hello"), {});
    expect(decision).toEqual({
      action: "pairing",
      ask: {
        senderId: "users/111000111",
        chatId: "spaces/DMalice",
        meta: { name: "Alice", email: "alice@example.com", accountId: "default" },
      },
    });
    expect(googleChatPairingMessage("users/111000111", "YZ6YVNFF")).toBe(
      "OpenClaw: access not configured.\n\nYour Google Chat user id: users/111000111\nPairing code:\n```\nYZ6YVNFF\n```\n\nAsk the bot owner to approve with:\n```\nopenclaw pairing approve googlechat YZ6YVNFF\n```",
    );
  });

  it("answers an approved DM in the main session, routed to the DM space", () => {
    const decision = decide(messageEvent(DM, "hello"), {}, ["users/111000111"]);
    expect(decision.action).toBe("turn");
    if (decision.action !== "turn") return;
    expect(decision.turn.sessionKey).toBe("agent:main:main");
    expect(decision.turn.replyTarget).toEqual({
      channel: "googlechat",
      to: "googlechat:spaces/DMalice",
      accountId: "default",
    });
  });

  it("drops listed spaces without a sender allowlist; allowFrom does not count", () => {
    const access = { groupPolicy: "allowlist" as const, groups: GROUPS, allowFrom: ["users/111000111"] };
    expect(decide(messageEvent(OPEN, "hi space"), access)).toEqual({
      action: "ignore",
      reason: "sender not allowed in space",
    });
  });

  it("answers a listed space with groupAllowFrom; every thread shares the space's lower-cased session", () => {
    const access = { groupPolicy: "allowlist" as const, groups: GROUPS, groupAllowFrom: ["users/111000111"] };
    const decision = decide(
      messageEvent(OPEN, "thread reply", { thread: { name: "spaces/AAAAopen/threads/tFIXED" } }),
      access,
    );
    expect(decision.action).toBe("turn");
    if (decision.action !== "turn") return;
    expect(decision.turn.sessionKey).toBe("agent:main:googlechat:group:spaces/aaaaopen");
    expect(decision.turn.replyTarget.to).toBe("googlechat:spaces/AAAAopen");
    expect(decision.turn.seed).toMatchObject({ chatType: "channel", displayName: "Team open" });
  });

  it("requires a USER_MENTION of botUser where requireMention, and keeps the mention in the text", () => {
    const access = {
      botUser: "users/999000999",
      groupPolicy: "allowlist" as const,
      groups: GROUPS,
      groupAllowFrom: ["users/111000111"],
    };
    expect(decide(messageEvent(MENT, "no mention here"), access)).toEqual({ action: "ignore", reason: "no mention" });
    const mentioned = decide(
      {
        ...messageEvent(MENT, "@FakeBot hi", MENTION_BOT),
        message: { ...messageEvent(MENT, "@FakeBot hi", MENTION_BOT).message!, argumentText: " hi" },
      },
      access,
    );
    expect(mentioned.action).toBe("turn");
    if (mentioned.action === "turn") expect(mentioned.turn.text).toBe("@FakeBot hi");
  });

  it("drops an unlisted space even with a mention and an allowed sender", () => {
    const access = { botUser: "users/999000999", groups: GROUPS, groupAllowFrom: ["users/111000111"] };
    expect(decide(messageEvent(OTHER, "@FakeBot hi", MENTION_BOT), access)).toEqual({
      action: "ignore",
      reason: "space not allowed",
    });
  });
});
