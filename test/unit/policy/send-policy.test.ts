import { describe, expect, it } from "vitest";
import { parseSendCommand, resolveSendPolicy, type SendPolicyConfig } from "../../../src/policy/send-policy";

const denyDiscordGroups: SendPolicyConfig = {
  rules: [{ action: "deny", match: { channel: "discord", chatType: "group" } }],
  default: "allow",
};

describe("resolveSendPolicy: override and defaults", () => {
  it("lets the per-session override win over config", () => {
    const key = "agent:main:discord:group:1";
    expect(resolveSendPolicy({ sessionKey: key, override: "allow", config: denyDiscordGroups })).toBe("allow");
    expect(resolveSendPolicy({ sessionKey: key, override: "deny" })).toBe("deny");
  });

  it("treats a null override as inherit", () => {
    expect(
      resolveSendPolicy({ sessionKey: "agent:main:discord:group:1", override: null, config: denyDiscordGroups }),
    ).toBe("deny");
  });

  it("allows when no config is present", () => {
    expect(resolveSendPolicy({ sessionKey: "agent:main:discord:group:1" })).toBe("allow");
  });

  it("falls back to config default when no rule matches", () => {
    expect(resolveSendPolicy({ sessionKey: "agent:main:main", config: { default: "deny" } })).toBe("deny");
    expect(resolveSendPolicy({ sessionKey: "agent:main:main", config: { default: "allow" } })).toBe("allow");
  });

  it("allows when no rule matches and no default is set", () => {
    expect(resolveSendPolicy({ sessionKey: "agent:main:main", config: { rules: [] } })).toBe("allow");
    expect(resolveSendPolicy({ sessionKey: "agent:main:main", config: {} })).toBe("allow");
  });
});

describe("resolveSendPolicy: rule walk", () => {
  it("returns deny for the first matching deny rule", () => {
    expect(resolveSendPolicy({ sessionKey: "agent:main:discord:group:1", config: denyDiscordGroups })).toBe("deny");
  });

  it("lets a matching deny win even after a matching allow", () => {
    const config: SendPolicyConfig = {
      rules: [
        { action: "allow", match: { channel: "discord" } },
        { action: "deny", match: { chatType: "group" } },
      ],
    };
    expect(resolveSendPolicy({ sessionKey: "agent:main:discord:group:1", config })).toBe("deny");
  });

  it("returns allow when an allow rule matched, overriding a deny default", () => {
    const config: SendPolicyConfig = { default: "deny", rules: [{ action: "allow", match: { channel: "telegram" } }] };
    expect(resolveSendPolicy({ sessionKey: "agent:main:telegram:group:5", config })).toBe("allow");
    expect(resolveSendPolicy({ sessionKey: "agent:main:discord:group:5", config })).toBe("deny");
  });

  it("treats a rule without action as allow", () => {
    const config: SendPolicyConfig = { default: "deny", rules: [{ match: { chatType: "direct" } }] };
    expect(resolveSendPolicy({ sessionKey: "agent:main:direct:alice", config })).toBe("allow");
  });

  it("treats a rule without match as matching every session", () => {
    expect(resolveSendPolicy({ sessionKey: "agent:main:main", config: { rules: [{ action: "deny" }] } })).toBe("deny");
  });

  it("skips a rule when any present match field differs", () => {
    const config: SendPolicyConfig = {
      rules: [{ action: "deny", match: { channel: "discord", chatType: "group", keyPrefix: "discord:group:9" } }],
    };
    expect(resolveSendPolicy({ sessionKey: "agent:main:discord:group:1", config })).toBe("allow");
    expect(resolveSendPolicy({ sessionKey: "agent:main:discord:group:9", config })).toBe("deny");
  });

  it("compares match values case-insensitively and trimmed", () => {
    const config: SendPolicyConfig = {
      rules: [{ action: "deny", match: { channel: " Discord ", chatType: "GROUP" } }],
    };
    expect(resolveSendPolicy({ sessionKey: "agent:main:discord:group:1", config })).toBe("deny");
    expect(resolveSendPolicy({ sessionKey: "agent:main:x", channel: "DISCORD", chatType: "Group", config })).toBe(
      "deny",
    );
  });
});

describe("resolveSendPolicy: channel derivation", () => {
  const denyDiscord: SendPolicyConfig = { rules: [{ action: "deny", match: { channel: "discord" } }] };

  it("prefers the explicit channel", () => {
    const r = resolveSendPolicy({
      sessionKey: "agent:main:discord:group:1",
      channel: "telegram",
      entryChannel: "discord",
      config: denyDiscord,
    });
    expect(r).toBe("allow");
  });

  it("uses the entry channel, then the last channel", () => {
    expect(resolveSendPolicy({ sessionKey: "agent:main:main", entryChannel: "discord", config: denyDiscord })).toBe(
      "deny",
    );
    expect(
      resolveSendPolicy({
        sessionKey: "agent:main:main",
        entryChannel: "slack",
        lastChannel: "discord",
        config: denyDiscord,
      }),
    ).toBe("allow");
    expect(resolveSendPolicy({ sessionKey: "agent:main:main", lastChannel: "discord", config: denyDiscord })).toBe(
      "deny",
    );
  });

  it("derives the channel from <ch>:group|channel:<id> after stripping agent:<id>:", () => {
    expect(resolveSendPolicy({ sessionKey: "agent:main:discord:group:1", config: denyDiscord })).toBe("deny");
    expect(resolveSendPolicy({ sessionKey: "agent:main:discord:channel:1", config: denyDiscord })).toBe("deny");
    expect(resolveSendPolicy({ sessionKey: "discord:group:1", config: denyDiscord })).toBe("deny");
  });

  it("does not derive a channel from direct or main keys", () => {
    expect(resolveSendPolicy({ sessionKey: "agent:main:discord:direct:alice", config: denyDiscord })).toBe("allow");
    expect(resolveSendPolicy({ sessionKey: "agent:main:main", config: denyDiscord })).toBe("allow");
  });

  it("ignores blank explicit channels", () => {
    expect(
      resolveSendPolicy({ sessionKey: "agent:main:main", channel: "  ", entryChannel: "discord", config: denyDiscord }),
    ).toBe("deny");
  });
});

describe("resolveSendPolicy: chat type derivation", () => {
  const deny = (chatType: string): SendPolicyConfig => ({ rules: [{ action: "deny", match: { chatType } }] });

  it("prefers the explicit chat type over the entry and the key", () => {
    const r = resolveSendPolicy({
      sessionKey: "agent:main:discord:group:1",
      chatType: "direct",
      entryChatType: "group",
      config: deny("group"),
    });
    expect(r).toBe("allow");
  });

  it("uses the entry chat type when no explicit one is given", () => {
    expect(resolveSendPolicy({ sessionKey: "agent:main:main", entryChatType: "group", config: deny("group") })).toBe(
      "deny",
    );
  });

  it("derives group, channel and direct from key tokens", () => {
    expect(resolveSendPolicy({ sessionKey: "agent:main:telegram:group:1", config: deny("group") })).toBe("deny");
    expect(resolveSendPolicy({ sessionKey: "agent:main:slack:channel:c1", config: deny("channel") })).toBe("deny");
    expect(resolveSendPolicy({ sessionKey: "agent:main:direct:alice", config: deny("direct") })).toBe("deny");
    expect(resolveSendPolicy({ sessionKey: "agent:main:whatsapp:default:direct:bob", config: deny("direct") })).toBe(
      "deny",
    );
  });

  it("treats legacy :dm: keys and the dm alias as direct", () => {
    expect(resolveSendPolicy({ sessionKey: "agent:main:dm:alice", config: deny("direct") })).toBe("deny");
    expect(resolveSendPolicy({ sessionKey: "agent:main:direct:alice", config: deny("dm") })).toBe("deny");
    expect(resolveSendPolicy({ sessionKey: "agent:main:main", chatType: "dm", config: deny("direct") })).toBe("deny");
  });

  it("derives channel for legacy Discord guild keys", () => {
    expect(resolveSendPolicy({ sessionKey: "discord:guild-1:channel-2", config: deny("channel") })).toBe("deny");
    expect(
      resolveSendPolicy({ sessionKey: "agent:main:discord:acct:guild-1:channel-2", config: deny("channel") }),
    ).toBe("deny");
  });

  it("leaves the chat type unknown for main and other keys", () => {
    for (const type of ["direct", "group", "channel"]) {
      expect(resolveSendPolicy({ sessionKey: "agent:main:main", config: deny(type) })).toBe("allow");
      expect(resolveSendPolicy({ sessionKey: "agent:main:cron:job1", config: deny(type) })).toBe("allow");
    }
  });

  it("does not read the agent id as a chat-type token", () => {
    expect(resolveSendPolicy({ sessionKey: "agent:group:main", config: deny("group") })).toBe("allow");
  });
});

describe("resolveSendPolicy: key prefixes", () => {
  it("matches keyPrefix against the raw key", () => {
    const config: SendPolicyConfig = { rules: [{ action: "deny", match: { keyPrefix: "agent:main:cron:" } }] };
    expect(resolveSendPolicy({ sessionKey: "agent:main:cron:job1", config })).toBe("deny");
    expect(resolveSendPolicy({ sessionKey: "agent:ops:cron:job1", config })).toBe("allow");
  });

  it("matches keyPrefix against the key with agent:<id>: stripped", () => {
    const config: SendPolicyConfig = { rules: [{ action: "deny", match: { keyPrefix: "cron:" } }] };
    expect(resolveSendPolicy({ sessionKey: "agent:main:cron:job1", config })).toBe("deny");
    expect(resolveSendPolicy({ sessionKey: "agent:ops:cron:job1", config })).toBe("deny");
    expect(resolveSendPolicy({ sessionKey: "cron:job1", config })).toBe("deny");
  });

  it("matches rawKeyPrefix only against the raw key", () => {
    const config: SendPolicyConfig = { rules: [{ action: "deny", match: { rawKeyPrefix: "cron:" } }] };
    expect(resolveSendPolicy({ sessionKey: "agent:main:cron:job1", config })).toBe("allow");
    expect(resolveSendPolicy({ sessionKey: "cron:job1", config })).toBe("deny");
    const agentScoped: SendPolicyConfig = { rules: [{ action: "deny", match: { rawKeyPrefix: "agent:main:" } }] };
    expect(resolveSendPolicy({ sessionKey: "agent:main:cron:job1", config: agentScoped })).toBe("deny");
    expect(resolveSendPolicy({ sessionKey: "agent:ops:cron:job1", config: agentScoped })).toBe("allow");
  });

  it("compares prefixes case-insensitively", () => {
    const config: SendPolicyConfig = {
      rules: [{ action: "deny", match: { keyPrefix: "CRON:", rawKeyPrefix: "Agent:Main:" } }],
    };
    expect(resolveSendPolicy({ sessionKey: "agent:main:Cron:Job1", config })).toBe("deny");
  });
});

describe("parseSendCommand", () => {
  it.each([
    ["/send on", "allow", "on"],
    ["/send allow", "allow", "on"],
    ["/send off", "deny", "off"],
    ["/send deny", "deny", "off"],
    ["/send inherit", null, "inherit"],
    ["/send default", null, "inherit"],
    ["/send reset", null, "inherit"],
  ] as const)("parses %s", (text, value, label) => {
    expect(parseSendCommand(text)).toEqual({ kind: "set", value, reply: `⚙️ Send policy set to ${label}.` });
  });

  it("is case-insensitive and ignores surrounding whitespace", () => {
    expect(parseSendCommand("  /SEND Off  ")).toEqual({
      kind: "set",
      value: "deny",
      reply: "⚙️ Send policy set to off.",
    });
  });

  it("accepts the colon form", () => {
    expect(parseSendCommand("/send: on")).toMatchObject({ kind: "set", value: "allow" });
    expect(parseSendCommand("/send:off")).toMatchObject({ kind: "set", value: "deny" });
  });

  it("answers usage for a bare /send", () => {
    expect(parseSendCommand("/send")).toEqual({ kind: "usage", reply: "⚙️ Usage: /send on|off|inherit" });
    expect(parseSendCommand("/send:")).toEqual({ kind: "usage", reply: "⚙️ Usage: /send on|off|inherit" });
  });

  it("answers usage for an unknown token", () => {
    expect(parseSendCommand("/send maybe")).toEqual({ kind: "usage", reply: "⚙️ Usage: /send on|off|inherit" });
    expect(parseSendCommand("/send constructor")).toMatchObject({ kind: "usage" });
  });

  it("returns null unless the command is the whole message", () => {
    expect(parseSendCommand("please /send off")).toBeNull();
    expect(parseSendCommand("/send off now")).toBeNull();
    expect(parseSendCommand("/send off\nand more")).toBeNull();
  });

  it("returns null for other text and lookalike commands", () => {
    expect(parseSendCommand("")).toBeNull();
    expect(parseSendCommand("hello")).toBeNull();
    expect(parseSendCommand("/sender on")).toBeNull();
    expect(parseSendCommand("/send 1")).toBeNull();
    expect(parseSendCommand("/status")).toBeNull();
  });
});
