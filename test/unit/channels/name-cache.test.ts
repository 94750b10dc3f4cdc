import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { afterEach, describe, expect, it, vi } from "vitest";
import { NAME_MISS_TTL_MS, nameCache } from "../../../src/features/channels/name-cache";
import { slackInbound } from "../../../src/features/channels/slack/adapter";
import { SlackWebApi } from "../../../src/features/channels/slack/web-api";
import type { TenantConfig } from "../../../src/protocol/config";

/** The shared name cache against a hung or refusing profile API (review 11b, issue 46). */

afterEach(() => {
  vi.useRealTimers();
});

describe("nameCache: misses and lookups in flight", () => {
  it("calls a failing lookup once within the miss window, again after it", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(1_795_705_000_000);
    const cache = nameCache({ maxEntries: 10, ttlMs: 600_000, lookupTimeoutMs: 60_000 });
    let calls = 0;
    const failing = async () => {
      calls++;
      throw new Error("profile API down");
    };
    const refused = async () => {
      calls++;
      return undefined;
    };
    for (let turn = 0; turn < 5; turn++) {
      expect(await cache.get("down", failing)).toBeUndefined();
      expect(await cache.get("refused", refused)).toBeUndefined();
    }
    expect(calls).toBe(2);
    vi.setSystemTime(1_795_705_000_000 + NAME_MISS_TTL_MS + 1);
    expect(await cache.get("down", async () => "Back")).toBe("Back");
    expect(await cache.get("refused", refused)).toBeUndefined();
    expect(calls).toBe(3);
  });

  it("shares one lookup between turns asking for one key at once", async () => {
    const cache = nameCache({ maxEntries: 10, ttlMs: 600_000, lookupTimeoutMs: 60_000 });
    let calls = 0;
    let answer: (name: string) => void = () => undefined;
    const named = new Promise<string>((resolve) => {
      answer = resolve;
    });
    const slow = () => {
      calls++;
      return named;
    };
    const asked = [cache.get("alice", slow), cache.get("alice", slow), cache.get("alice", slow)];
    answer("Alice");
    expect(await Promise.all(asked)).toEqual(["Alice", "Alice", "Alice"]);
    expect(calls).toBe(1);
  });

  it("a hung lookup: turns asking meanwhile end at its deadline, the turns after it do not wait", async () => {
    const cache = nameCache({ maxEntries: 10, ttlMs: 600_000, lookupTimeoutMs: 400 });
    let calls = 0;
    const hung = () => {
      calls++;
      return new Promise<string>(() => undefined);
    };
    expect(await Promise.all([cache.get("hung", hung), cache.get("hung", hung)])).toEqual([undefined, undefined]);
    // Past the deadline the miss answers at once (before any timer can fire): no call, no wait.
    const waited = new Promise((resolve) => setTimeout(() => resolve("waited"), 0));
    expect(await Promise.race([cache.get("hung", hung), waited])).toBeUndefined();
    expect(calls).toBe(1);
  });

  it("a flight whose deadline passed unanswered (its request gone, its timer with it) is not joined", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(1_795_705_000_000);
    const cache = nameCache({ maxEntries: 10, ttlMs: 600_000, lookupTimeoutMs: 60_000 });
    let calls = 0;
    const hung = () => {
      calls++;
      return new Promise<string>(() => undefined);
    };
    void cache.get("stuck", hung);
    vi.setSystemTime(1_795_705_000_000 + 60_001);
    expect(await cache.get("stuck", async () => "Fresh")).toBe("Fresh");
    expect(calls).toBe(1);
  });
});

describe("Slack's channel and user names", () => {
  it("are looked up side by side: both requests are open at once", async () => {
    // A Web API that answers conversations.info and users.info only once both are asked (or
    // after 1 s, the sequential case), counting the requests open at once.
    const held: Array<{ method: string; response: ServerResponse }> = [];
    let open = 0;
    let mostOpen = 0;
    const answerAll = () => {
      for (const { method, response } of held.splice(0)) {
        const body =
          method === "conversations.info"
            ? { ok: true, channel: { name: "general" } }
            : { ok: true, user: { profile: { display_name: "Bob" } } };
        response.writeHead(200, { "content-type": "application/json" });
        response.end(JSON.stringify(body));
        open--;
      }
    };
    const server = createServer((request: IncomingMessage, response: ServerResponse) => {
      request.on("data", () => undefined);
      request.on("end", () => {
        const method = String(request.url).split("/").pop()!;
        open++;
        mostOpen = Math.max(mostOpen, open);
        held.push({ method, response });
        if (held.length === 2) answerAll();
        else setTimeout(answerAll, 1_000);
      });
    });
    await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
    try {
      const { port } = server.address() as { port: number };
      const policy = { allowLoopback: true, allowedHosts: [], ownOrigins: [] };
      const api = new SlackWebApi(`xoxb-side-by-side-${port}`, `http://127.0.0.1:${port}/api/`, policy);
      const identity = { userId: "U0BOT", botId: "B0BOT", tokenDigest: await api.tokenDigest() };
      const inbound = slackInbound({ api: async () => api, identity: { get: () => identity, save: () => undefined } });
      const event = { type: "message", ts: "1795705000.000100", channel: "C0OPEN", channel_type: "channel" };
      const body = JSON.stringify({
        type: "event_callback",
        event_id: "Ev0SIDE",
        team_id: "T0TEST",
        event: { ...event, user: "U0BOB", text: "hello" },
      });
      const slack = {
        mode: "http",
        dmPolicy: "open",
        groupPolicy: "open",
        channels: { C0OPEN: { requireMention: false } },
      };
      const config = { channels: { slack } } as unknown as TenantConfig;
      const decision = await inbound.decide({ body, config, approved: new Set() });
      expect(mostOpen).toBe(2);
      expect(decision?.action).toBe("turn");
      expect(JSON.stringify(decision)).toContain("Bob");
      expect(JSON.stringify(decision)).toContain("general");
    } finally {
      await new Promise<void>((closed) => server.close(() => closed()));
    }
  });
});
