import { describe, expect, it } from "vitest";
import {
  agentIdOf,
  BIDI_CONTROL_RE,
  classifySessionKeyShape,
  classifySessionKind,
  deriveChannel,
  deriveChatType,
  isAcpSessionKey,
  isCronRunKey,
  isRefusedAgentId,
  isReservedKey,
  isValidAgentId,
  looksLikeSessionId,
  looksLikeSessionKey,
  mainSessionKey,
  normalizeAgentId,
  normalizeMainKey,
  parseAgentSessionKey,
  parseThreadSuffix,
  resolveMainAlias,
  shouldResolveAsSessionId,
  subagentDepth,
  toDisplayKey,
  toInternalKey,
  toStoreKey,
} from "../../../src/keys/session-key";

const UUID = "0f8fad5b-d9cb-469f-a165-70867728950e";
const GLOBAL = { scope: "global" } as const;

describe("defaults", () => {
  it("falls back to OpenClaw's default agent and main key when none is given", () => {
    expect(normalizeAgentId(undefined)).toBe("main");
    expect(normalizeAgentId("  ")).toBe("main");
    expect(normalizeMainKey(null)).toBe("main");
    expect(mainSessionKey(normalizeAgentId(""))).toBe("agent:main:main");
  });
});

describe("isValidAgentId", () => {
  it("accepts lowercase, digits, dash and underscore after an alphanumeric first char", () => {
    expect(isValidAgentId("main")).toBe(true);
    expect(isValidAgentId("a")).toBe(true);
    expect(isValidAgentId("0ops_team-2")).toBe(true);
  });

  it("is case-insensitive", () => {
    expect(isValidAgentId("Ops")).toBe(true);
  });

  it("ignores surrounding whitespace like OpenClaw", () => {
    expect(isValidAgentId("  ops  ")).toBe(true);
  });

  it("rejects empty, leading dash/underscore, invalid chars", () => {
    expect(isValidAgentId("")).toBe(false);
    expect(isValidAgentId("   ")).toBe(false);
    expect(isValidAgentId("-ops")).toBe(false);
    expect(isValidAgentId("_ops")).toBe(false);
    expect(isValidAgentId("my agent")).toBe(false);
    expect(isValidAgentId("a:b")).toBe(false);
  });

  it("allows at most 64 chars", () => {
    expect(isValidAgentId("a".repeat(64))).toBe(true);
    expect(isValidAgentId("a".repeat(65))).toBe(false);
  });
});

describe("normalizeAgentId", () => {
  it("trims and lowercases valid ids", () => {
    expect(normalizeAgentId("  Ops  ")).toBe("ops");
  });

  it("maps empty and whitespace to main", () => {
    expect(normalizeAgentId("")).toBe("main");
    expect(normalizeAgentId("   ")).toBe("main");
  });

  it("collapses runs of invalid chars into one dash", () => {
    expect(normalizeAgentId("My Agent!!x")).toBe("my-agent-x");
  });

  it("strips leading and trailing dashes", () => {
    expect(normalizeAgentId("--hello world--")).toBe("hello-world");
    expect(normalizeAgentId("!!ops!!")).toBe("ops");
  });

  it("cuts at 64 chars", () => {
    const long = `${"b".repeat(70)} x`;
    expect(normalizeAgentId(long)).toBe("b".repeat(64));
  });

  it("falls back to main when nothing valid remains", () => {
    expect(normalizeAgentId("!!!")).toBe("main");
    expect(normalizeAgentId("---")).toBe("main");
  });
});

describe("normalizeMainKey", () => {
  it("trims and lowercases, empty → main", () => {
    expect(normalizeMainKey(" Work ")).toBe("work");
    expect(normalizeMainKey("  ")).toBe("main");
    expect(normalizeMainKey(undefined)).toBe("main");
  });
});

describe("parseAgentSessionKey", () => {
  it("splits agent id and rest", () => {
    expect(parseAgentSessionKey("agent:ops:discord:group:123")).toEqual({
      agentId: "ops",
      rest: "discord:group:123",
    });
  });

  it("trims and lowercases", () => {
    expect(parseAgentSessionKey("  AGENT:Ops:Main  ")).toEqual({ agentId: "ops", rest: "main" });
  });

  it("drops empty segments", () => {
    expect(parseAgentSessionKey("agent::ops::x::y")).toEqual({ agentId: "ops", rest: "x:y" });
  });

  it("needs at least three parts", () => {
    expect(parseAgentSessionKey("agent:main")).toBeNull();
    expect(parseAgentSessionKey("agent::x")).toBeNull();
    expect(parseAgentSessionKey("agent:")).toBeNull();
  });

  it("needs agent as the first part", () => {
    expect(parseAgentSessionKey("main")).toBeNull();
    expect(parseAgentSessionKey("cron:job:run:1")).toBeNull();
    expect(parseAgentSessionKey("agents:main:main")).toBeNull();
  });

  it("returns null for empty input", () => {
    expect(parseAgentSessionKey("")).toBeNull();
    expect(parseAgentSessionKey("   ")).toBeNull();
  });
});

describe("classifySessionKeyShape", () => {
  it("reports missing for empty, whitespace, null and undefined", () => {
    expect(classifySessionKeyShape("")).toBe("missing");
    expect(classifySessionKeyShape("  ")).toBe("missing");
    expect(classifySessionKeyShape(null)).toBe("missing");
    expect(classifySessionKeyShape(undefined)).toBe("missing");
  });

  it("reports agent for parseable agent keys, any case", () => {
    expect(classifySessionKeyShape("agent:main:main")).toBe("agent");
    expect(classifySessionKeyShape("Agent:Main:X")).toBe("agent");
  });

  it("reports malformed_agent for agent: keys that do not parse", () => {
    expect(classifySessionKeyShape("agent:main")).toBe("malformed_agent");
    expect(classifySessionKeyShape("agent::x")).toBe("malformed_agent");
    expect(classifySessionKeyShape("AGENT:")).toBe("malformed_agent");
  });

  it("reports legacy_or_alias for everything else", () => {
    expect(classifySessionKeyShape("main")).toBe("legacy_or_alias");
    expect(classifySessionKeyShape("subagent:worker")).toBe("legacy_or_alias");
    expect(classifySessionKeyShape("discord:group:1")).toBe("legacy_or_alias");
  });
});

describe("resolveMainAlias", () => {
  it("defaults to main key main, per-sender scope, alias main", () => {
    expect(resolveMainAlias()).toEqual({ mainKey: "main", scope: "per-sender", alias: "main" });
  });

  it("uses the normalized mainKey as alias", () => {
    expect(resolveMainAlias({ mainKey: " Work " })).toEqual({
      mainKey: "work",
      scope: "per-sender",
      alias: "work",
    });
  });

  it("falls back to main when mainKey is blank", () => {
    expect(resolveMainAlias({ mainKey: "   " }).mainKey).toBe("main");
  });

  it("aliases to global when scope is global", () => {
    expect(resolveMainAlias({ scope: "global", mainKey: "work" })).toEqual({
      mainKey: "work",
      scope: "global",
      alias: "global",
    });
  });
});

describe("mainSessionKey", () => {
  it("builds agent:<agentId>:<mainKey>", () => {
    expect(mainSessionKey("main")).toBe("agent:main:main");
    expect(mainSessionKey("ops", { mainKey: "Work" })).toBe("agent:ops:work");
  });

  it("normalizes the agent id", () => {
    expect(mainSessionKey(" Ops ")).toBe("agent:ops:main");
    expect(mainSessionKey("")).toBe("agent:main:main");
  });

  it("is global when scope is global", () => {
    expect(mainSessionKey("ops", GLOBAL)).toBe("global");
  });
});

describe("toStoreKey", () => {
  it("aliases main to the agent's main key", () => {
    expect(toStoreKey({ agentId: "ops", requestKey: "main" })).toBe("agent:ops:main");
    expect(toStoreKey({ agentId: "ops", requestKey: " MAIN " })).toBe("agent:ops:main");
  });

  it("maps an empty or blank request key to the main key", () => {
    expect(toStoreKey({ agentId: "ops", requestKey: "" })).toBe("agent:ops:main");
    expect(toStoreKey({ agentId: "ops", requestKey: "   " })).toBe("agent:ops:main");
  });

  it("maps both main and the configured mainKey to the configured main key", () => {
    const cfg = { mainKey: "work" };
    expect(toStoreKey({ agentId: "ops", requestKey: "main", cfg })).toBe("agent:ops:work");
    expect(toStoreKey({ agentId: "ops", requestKey: "Work", cfg })).toBe("agent:ops:work");
  });

  it("maps main to global when scope is global", () => {
    expect(toStoreKey({ agentId: "ops", requestKey: "main", cfg: GLOBAL })).toBe("global");
    expect(toStoreKey({ agentId: "ops", requestKey: "", cfg: GLOBAL })).toBe("global");
  });

  it("keeps reserved keys unprefixed and lowercased", () => {
    expect(toStoreKey({ agentId: "ops", requestKey: "global" })).toBe("global");
    expect(toStoreKey({ agentId: "ops", requestKey: " Unknown " })).toBe("unknown");
  });

  it("re-emits agent-qualified keys lowercased without empty segments", () => {
    expect(toStoreKey({ agentId: "main", requestKey: "Agent:Ops:Discord:Group:ABC" })).toBe(
      "agent:ops:discord:group:abc",
    );
    expect(toStoreKey({ agentId: "main", requestKey: "agent::ops::x" })).toBe("agent:ops:x");
  });

  it("keeps another agent's id in agent-qualified keys", () => {
    expect(toStoreKey({ agentId: "main", requestKey: "agent:ops:subagent:1" })).toBe("agent:ops:subagent:1");
  });

  it("folds an agent-qualified main alias onto the configured main key", () => {
    expect(toStoreKey({ agentId: "main", requestKey: "agent:ops:main", cfg: { mainKey: "work" } })).toBe(
      "agent:ops:work",
    );
    expect(toStoreKey({ agentId: "main", requestKey: "agent:ops:main", cfg: GLOBAL })).toBe("global");
  });

  it("lowercases malformed agent keys as they are", () => {
    expect(toStoreKey({ agentId: "ops", requestKey: " Agent:Main " })).toBe("agent:main");
    expect(toStoreKey({ agentId: "ops", requestKey: "agent::X" })).toBe("agent::x");
  });

  it("prefixes everything else with the normalized agent id", () => {
    expect(toStoreKey({ agentId: "Ops", requestKey: "Discord:Group:123" })).toBe("agent:ops:discord:group:123");
    expect(toStoreKey({ agentId: "ops", requestKey: "cron:job1" })).toBe("agent:ops:cron:job1");
    expect(toStoreKey({ agentId: "", requestKey: "hook:abc" })).toBe("agent:main:hook:abc");
  });

  it("is idempotent on its own output", () => {
    const keys = ["main", "Discord:Group:1", "agent:ops:x", "global", "cron:a:run:b"];
    for (const requestKey of keys) {
      const once = toStoreKey({ agentId: "ops", requestKey });
      expect(toStoreKey({ agentId: "ops", requestKey: once })).toBe(once);
    }
  });
});

describe("toDisplayKey", () => {
  it("shows main for the alias and mainKey", () => {
    expect(toDisplayKey("main")).toBe("main");
    expect(toDisplayKey("work", { mainKey: "work" })).toBe("main");
  });

  it("shows main for the agent's canonical main key", () => {
    expect(toDisplayKey("agent:ops:main", undefined, "ops")).toBe("main");
    expect(toDisplayKey("agent:ops:work", { mainKey: "work" }, "ops")).toBe("main");
  });

  it("defaults the agent to main", () => {
    expect(toDisplayKey("agent:main:main")).toBe("main");
  });

  it("keeps another agent's main key unchanged", () => {
    expect(toDisplayKey("agent:ops:main", undefined, "main")).toBe("agent:ops:main");
  });

  it("shows main for global when scope is global", () => {
    expect(toDisplayKey("global", GLOBAL)).toBe("main");
    expect(toDisplayKey("global")).toBe("global");
  });

  it("leaves other keys unchanged", () => {
    expect(toDisplayKey("agent:main:discord:group:1")).toBe("agent:main:discord:group:1");
  });
});

describe("toInternalKey", () => {
  it("maps current to the requester key", () => {
    expect(toInternalKey("current", { requesterKey: "agent:ops:subagent:1" })).toBe("agent:ops:subagent:1");
  });

  it("keeps current when there is no requester key", () => {
    expect(toInternalKey("current", {})).toBe("current");
  });

  it("maps main to the agent's main session key", () => {
    expect(toInternalKey("main", { agentId: "ops" })).toBe("agent:ops:main");
    expect(toInternalKey("main", { agentId: "ops", cfg: { mainKey: "work" } })).toBe("agent:ops:work");
  });

  it("takes the agent from the requester key when no agentId is given", () => {
    expect(toInternalKey("main", { requesterKey: "agent:ops:discord:group:1" })).toBe("agent:ops:main");
    expect(toInternalKey("main", {})).toBe("agent:main:main");
  });

  it("maps main to global when scope is global", () => {
    expect(toInternalKey("main", { agentId: "ops", cfg: GLOBAL })).toBe("global");
  });

  it("leaves other keys unchanged (trimmed)", () => {
    expect(toInternalKey("agent:ops:x", { agentId: "main" })).toBe("agent:ops:x");
    expect(toInternalKey(" cron:job ", {})).toBe("cron:job");
  });
});

describe("session id vs key detection", () => {
  it("recognizes UUIDs as session ids, any case, trimmed", () => {
    expect(looksLikeSessionId(UUID)).toBe(true);
    expect(looksLikeSessionId(` ${UUID.toUpperCase()} `)).toBe(true);
  });

  it("rejects non-UUIDs as session ids", () => {
    expect(looksLikeSessionId("0f8fad5b-d9cb-469f-a165")).toBe(false);
    expect(looksLikeSessionId("zf8fad5b-d9cb-469f-a165-70867728950e")).toBe(false);
    expect(looksLikeSessionId("main")).toBe(false);
  });

  it("treats reserved words and current as keys", () => {
    for (const s of ["main", "global", "unknown", "current", " main "]) {
      expect(looksLikeSessionKey(s)).toBe(true);
    }
  });

  it("treats agent, cron, hook, node and acp prefixes as keys", () => {
    for (const s of ["agent:main:x", "agent:main", "cron:job", "hook:abc", "node-1", "node:1", "acp:x"]) {
      expect(looksLikeSessionKey(s)).toBe(true);
    }
  });

  it("treats keys containing :group: or :channel: as keys", () => {
    expect(looksLikeSessionKey("discord:group:1")).toBe(true);
    expect(looksLikeSessionKey("slack:channel:c1")).toBe(true);
  });

  it("does not treat free text or empty input as keys", () => {
    expect(looksLikeSessionKey("")).toBe(false);
    expect(looksLikeSessionKey("my-session")).toBe(false);
    expect(looksLikeSessionKey("subagent:worker")).toBe(false);
    expect(looksLikeSessionKey(UUID)).toBe(false);
  });

  it("matches key prefixes case-sensitively like OpenClaw (except acp)", () => {
    expect(looksLikeSessionKey("Main")).toBe(false);
    expect(looksLikeSessionKey("AGENT:main:x")).toBe(false);
    expect(looksLikeSessionKey("ACP:x")).toBe(true);
  });

  it("resolves UUIDs and non-key input as session ids", () => {
    expect(shouldResolveAsSessionId(UUID)).toBe(true);
    expect(shouldResolveAsSessionId("my-session")).toBe(true);
    expect(shouldResolveAsSessionId("subagent:worker")).toBe(true);
  });

  it("resolves key-like input as keys", () => {
    expect(shouldResolveAsSessionId("main")).toBe(false);
    expect(shouldResolveAsSessionId("current")).toBe(false);
    expect(shouldResolveAsSessionId("agent:main:main")).toBe(false);
    expect(shouldResolveAsSessionId("cron:job")).toBe(false);
  });
});

describe("isAcpSessionKey", () => {
  it("accepts bare and agent-scoped acp keys", () => {
    expect(isAcpSessionKey("acp:abc")).toBe(true);
    expect(isAcpSessionKey("agent:codex:acp:abc")).toBe(true);
    expect(isAcpSessionKey("agent:main:main")).toBe(false);
    expect(isAcpSessionKey("")).toBe(false);
  });
});

describe("isReservedKey", () => {
  it("is true for global and unknown only", () => {
    expect(isReservedKey("global")).toBe(true);
    expect(isReservedKey("unknown")).toBe(true);
    expect(isReservedKey(" Global ")).toBe(true);
    expect(isReservedKey("main")).toBe(false);
    expect(isReservedKey("agent:main:global")).toBe(false);
  });
});

describe("isCronRunKey", () => {
  it("matches agent-scoped cron run keys", () => {
    expect(isCronRunKey("agent:main:cron:job1:run:r1")).toBe(true);
    expect(isCronRunKey("AGENT:Main:Cron:Job1:Run:R1")).toBe(true);
  });

  it("matches cron run keys without the agent prefix", () => {
    expect(isCronRunKey("cron:job1:run:r1")).toBe(true);
  });

  it("rejects plain cron keys and extra segments", () => {
    expect(isCronRunKey("agent:main:cron:job1")).toBe(false);
    expect(isCronRunKey("agent:main:cron:job1:run")).toBe(false);
    expect(isCronRunKey("agent:main:cron:job1:run:r1:extra")).toBe(false);
    expect(isCronRunKey("agent:main:hook:job1:run:r1")).toBe(false);
    expect(isCronRunKey("")).toBe(false);
  });
});

describe("deriveChatType", () => {
  it("detects group and channel tokens", () => {
    expect(deriveChatType("agent:main:discord:group:1")).toBe("group");
    expect(deriveChatType("agent:main:slack:channel:c1")).toBe("channel");
  });

  it("prefers group over channel", () => {
    expect(deriveChatType("agent:main:x:channel:1:group:2")).toBe("group");
  });

  it("detects direct and legacy dm", () => {
    expect(deriveChatType("agent:main:direct:bob")).toBe("direct");
    expect(deriveChatType("agent:main:telegram:default:direct:bob")).toBe("direct");
    expect(deriveChatType("agent:main:whatsapp:dm:+1555")).toBe("direct");
  });

  it("ignores the agent prefix (an agent named group is not a group)", () => {
    expect(deriveChatType("agent:group:main")).toBe("unknown");
  });

  it("is case-insensitive and works without the agent prefix", () => {
    expect(deriveChatType("Discord:GROUP:1")).toBe("group");
  });

  it("detects the legacy Discord guild channel form", () => {
    expect(deriveChatType("discord:guild-1:channel-2")).toBe("channel");
    expect(deriveChatType("discord:acct:guild-1:channel-2")).toBe("channel");
    expect(deriveChatType("agent:main:discord:guild-1:channel-2")).toBe("channel");
  });

  it("returns unknown otherwise", () => {
    expect(deriveChatType("agent:main:main")).toBe("unknown");
    expect(deriveChatType("agent:main:subagent:x")).toBe("unknown");
    expect(deriveChatType("")).toBe("unknown");
  });
});

describe("classifySessionKind", () => {
  it("is main for the alias and mainKey", () => {
    expect(classifySessionKind("main", {})).toBe("main");
    expect(classifySessionKind("work", { cfg: { mainKey: "work" } })).toBe("main");
    expect(classifySessionKind("global", { cfg: GLOBAL })).toBe("main");
  });

  it("is main for a canonical agent main key", () => {
    expect(classifySessionKind("agent:main:main", {})).toBe("main");
    expect(classifySessionKind("agent:ops:work", { cfg: { mainKey: "work" }, agentId: "ops" })).toBe("main");
  });

  it("does not treat the default main key as main when mainKey differs", () => {
    expect(classifySessionKind("agent:main:main", { cfg: { mainKey: "work" } })).toBe("other");
  });

  it("is cron, hook, node for bare prefixes", () => {
    expect(classifySessionKind("cron:job1", {})).toBe("cron");
    expect(classifySessionKind("hook:abc", {})).toBe("hook");
    expect(classifySessionKind("node-1", {})).toBe("node");
    expect(classifySessionKind("node:1", {})).toBe("node");
  });

  it("classifies agent-prefixed cron/hook/node keys by what follows the prefix (keys are stored canonically)", () => {
    expect(classifySessionKind("agent:main:cron:job1", {})).toBe("cron");
    expect(classifySessionKind("agent:main:hook:abc", {})).toBe("hook");
    expect(classifySessionKind("agent:main:node-1", {})).toBe("node");
    expect(classifySessionKind("agent:main:cronjob", {})).toBe("other");
  });

  it("is group for group/channel chat types", () => {
    expect(classifySessionKind("agent:main:x", { chatType: "group" })).toBe("group");
    expect(classifySessionKind("agent:main:x", { chatType: "channel" })).toBe("group");
    expect(classifySessionKind("agent:main:x", { chatType: "direct" })).toBe("other");
  });

  it("is group for keys containing :group: or :channel:", () => {
    expect(classifySessionKind("agent:main:discord:group:1", {})).toBe("group");
    expect(classifySessionKind("agent:main:slack:channel:c1", {})).toBe("group");
  });

  it("is other for everything else", () => {
    expect(classifySessionKind("agent:main:subagent:x", {})).toBe("other");
    expect(classifySessionKind("agent:main:direct:bob", {})).toBe("other");
    expect(classifySessionKind("global", {})).toBe("other");
  });
});

describe("deriveChannel", () => {
  it("is internal for cron, hook and node kinds", () => {
    for (const kind of ["cron", "hook", "node"]) {
      expect(deriveChannel({ key: "x", kind, channel: "discord" })).toBe("internal");
    }
  });

  it("prefers the entry channel", () => {
    const row = { key: "agent:main:x", kind: "group", channel: "discord", lastChannel: "telegram" };
    expect(deriveChannel(row)).toBe("discord");
  });

  it("falls back to the origin provider", () => {
    expect(deriveChannel({ key: "k", kind: "other", originProvider: "whatsapp", lastChannel: "x" })).toBe("whatsapp");
  });

  it("then uses the delivery channel before lastChannel", () => {
    expect(deriveChannel({ key: "k", kind: "main", deliveryChannel: "signal", lastChannel: "x" })).toBe("signal");
    expect(deriveChannel({ key: "k", kind: "main", lastChannel: "imessage" })).toBe("imessage");
  });

  it("skips blank values", () => {
    expect(deriveChannel({ key: "k", kind: "main", channel: "  ", lastChannel: " webchat " })).toBe("webchat");
  });

  it("parses the channel from group/channel keys after the agent prefix", () => {
    expect(deriveChannel({ key: "agent:main:discord:group:1", kind: "group" })).toBe("discord");
    expect(deriveChannel({ key: "slack:channel:c1", kind: "group" })).toBe("slack");
  });

  it("is unknown when nothing matches", () => {
    expect(deriveChannel({ key: "agent:main:main", kind: "main" })).toBe("unknown");
    expect(deriveChannel({ key: "agent:main:discord:group", kind: "group" })).toBe("unknown");
    expect(deriveChannel({ key: "agent:main:telegram:direct:1", kind: "other" })).toBe("unknown");
  });
});

describe("parseThreadSuffix", () => {
  it("splits a :thread: suffix", () => {
    expect(parseThreadSuffix("agent:main:slack:channel:c1:thread:123.45")).toEqual({
      baseKey: "agent:main:slack:channel:c1",
      threadId: "123.45",
      kind: "thread",
    });
  });

  it("splits a Telegram :topic: suffix", () => {
    expect(parseThreadSuffix("agent:main:telegram:group:-100:topic:7")).toEqual({
      baseKey: "agent:main:telegram:group:-100",
      threadId: "7",
      kind: "topic",
    });
  });

  it("uses the rightmost thread marker", () => {
    expect(parseThreadSuffix("a:thread:1:thread:2")).toEqual({ baseKey: "a:thread:1", threadId: "2", kind: "thread" });
  });

  it("matches markers case-insensitively and preserves id case", () => {
    expect(parseThreadSuffix("a:THREAD:AbC")).toEqual({ baseKey: "a", threadId: "AbC", kind: "thread" });
  });

  it("returns the trimmed key when there is no suffix", () => {
    expect(parseThreadSuffix(" agent:main:main ")).toEqual({ baseKey: "agent:main:main" });
  });

  it("ignores a marker with no id or no base", () => {
    expect(parseThreadSuffix("a:thread:")).toEqual({ baseKey: "a:thread:" });
    expect(parseThreadSuffix(":thread:1")).toEqual({ baseKey: ":thread:1" });
  });
});

describe("subagentDepth", () => {
  it("counts :subagent: segments", () => {
    expect(subagentDepth("agent:main:main")).toBe(0);
    expect(subagentDepth("agent:main:subagent:a")).toBe(1);
    expect(subagentDepth("agent:main:subagent:a:subagent:b")).toBe(2);
    expect(subagentDepth("AGENT:MAIN:SUBAGENT:A")).toBe(1);
  });

  it("is zero for empty or bare subagent keys", () => {
    expect(subagentDepth("")).toBe(0);
    expect(subagentDepth("subagent:a")).toBe(0);
  });
});

describe("agentIdOf", () => {
  it("reads the agent id of an agent key", () => {
    expect(agentIdOf("agent:Ops:main")).toBe("ops");
  });

  it("falls back to the normalized fallback, then main", () => {
    expect(agentIdOf("discord:group:1", " Ops ")).toBe("ops");
    expect(agentIdOf("agent:main", "ops")).toBe("ops");
    expect(agentIdOf("main")).toBe("main");
  });
});

describe("names a hosted tenant may not use", () => {
  it("refuses path-like and prototype agent ids, before any normalizing", () => {
    for (const id of ["../x", "a/b", "a\\b", "..", ".x", "__proto__", "constructor", "Prototype", " prototype "]) {
      expect(isRefusedAgentId(id), id).toBe(true);
    }
    for (const id of ["main", "ops-1", "Ops Agent", "a.b", "_x"]) expect(isRefusedAgentId(id), id).toBe(false);
  });

  it("finds every bidirectional-control character and nothing else", () => {
    const marks = [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c];
    for (const mark of marks)
      expect(BIDI_CONTROL_RE.test(`a${String.fromCharCode(mark)}b`), mark.toString(16)).toBe(true);
    expect(BIDI_CONTROL_RE.test("agent:main:דוד-مرحبا-ü-\u200d")).toBe(false);
  });
});
