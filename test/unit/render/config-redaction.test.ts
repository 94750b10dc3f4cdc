import { describe, expect, it } from "vitest";
import {
  REDACTED_SENTINEL,
  redactConfig,
  restoreRedacted,
  urlCarriesCredential,
} from "../../../src/render/config-redaction";
import { urlSecrets } from "../../../src/secrets/url-secrets";

describe("config URL redaction (OpenClaw's rule)", () => {
  it("finds a user, a password or a credential-named query parameter", () => {
    for (const url of [
      "https://u@h.example/",
      "https://u:p@h.example/",
      "https://h.example/?token=x",
      "https://h.example/?API-KEY=x",
      "https://h.example/?hook_token=x",
      "https://h.example/?bot_token=x",
      "https://h.example/?X-Amz-Signature=x",
    ]) {
      expect(urlCarriesCredential(url), url).toBe(true);
    }
    for (const url of ["https://h.example/v1", "https://h.example/?page=2&tokens=3", "not a url"]) {
      expect(urlCarriesCredential(url), url).toBe(false);
    }
  });

  it("redacts only URL keys, and restores list entries by id whatever their order", () => {
    const stored = {
      list: [
        { id: "a", baseUrl: "https://u:p@a.example" },
        { id: "b", url: "https://b.example/?key=k" },
      ],
    };
    const shown = redactConfig(stored);
    expect(shown).toEqual({
      list: [
        { id: "a", baseUrl: REDACTED_SENTINEL },
        { id: "b", url: REDACTED_SENTINEL },
      ],
    });
    const reordered = { list: [shown.list[1], shown.list[0]] };
    expect(restoreRedacted(reordered, stored)).toEqual({ ok: true, value: { list: [stored.list[1], stored.list[0]] } });
    expect(restoreRedacted({ name: REDACTED_SENTINEL }, stored)).toMatchObject({ ok: false });
  });
});

describe("capability URLs (a secret OpenClaw's rule misses) are shown as their origin only", () => {
  const capability = {
    slack: "https://hooks.slack.com/services/T0AAAA/B0BBBB/abc",
    discord: "https://discord.com/api/webhooks/123456789/Zq81tL0vWm3Kp7Rj5NwXhc-AbCdEf",
    fragment: "https://ops.example.com/notify#token=Zq81tL0",
    k: "https://ops.example.com/notify?k=abc123",
    pwd: "https://ops.example.com/notify?pwd=hunter22",
    keyPath: "https://relay.example.com/in/Zq81tL0vWm3Kp7Rj5NwX/run",
  };
  it("answers each as `<origin>/…`; a plain URL, a path of words and a UUID stay", () => {
    const shown = redactConfig({
      channels: capability,
      plain: [
        "https://api.openai.com/v1",
        "https://h.example/key-probe-abcd1234",
        "https://h.example/8f0c9a4e-1b2c-4d3e-9f00-123456789abc",
      ],
    });
    expect(shown.channels).toEqual({
      slack: "https://hooks.slack.com/…",
      discord: "https://discord.com/…",
      fragment: "https://ops.example.com/…",
      k: "https://ops.example.com/…",
      pwd: "https://ops.example.com/…",
      keyPath: "https://relay.example.com/…",
    });
    expect(shown.plain).toEqual([
      "https://api.openai.com/v1",
      "https://h.example/key-probe-abcd1234",
      "https://h.example/8f0c9a4e-1b2c-4d3e-9f00-123456789abc",
    ]);
  });

  it("leaves text that merely starts with a URL (a prompt) as it is", () => {
    const prompt = "https://ops.example.com/notify?k=abc123 is where alerts go";
    expect(redactConfig({ agents: { defaults: { systemPrompt: prompt } } })).toEqual({
      agents: { defaults: { systemPrompt: prompt } },
    });
  });

  it("a write that sends the origin form back keeps the stored URL; a new URL replaces it", () => {
    const stored = {
      delivery: { webhookUrl: capability.slack },
      agents: { list: [{ id: "a", runner: { url: capability.k } }] },
    };
    const restored = restoreRedacted(redactConfig(stored), stored);
    expect(restored).toEqual({ ok: true, value: stored });
    const replaced = restoreRedacted(
      { delivery: { webhookUrl: "https://hooks.slack.com/services/T1/B2/new" } },
      stored,
    );
    expect(replaced).toEqual({
      ok: true,
      value: { delivery: { webhookUrl: "https://hooks.slack.com/services/T1/B2/new" } },
    });
  });
});

describe("urlSecrets (what a sender to a URL declares for redaction)", () => {
  it("names the password, query and fragment values and the capability path, decoded too", () => {
    expect(urlSecrets("https://u:p%40ss@h.example/services/x?k=abc123&page=2#token=Zq81tL0")).toEqual(
      expect.arrayContaining(["p%40ss", "p@ss", "abc123", "token=Zq81tL0", "Zq81tL0"]),
    );
    expect(urlSecrets("https://hooks.slack.com/services/T0AAAA/B0BBBB/abc")).toEqual(["T0AAAA", "B0BBBB", "abc"]);
    expect(urlSecrets("https://api.openai.com/v1")).toEqual([]);
    expect(urlSecrets("not a url")).toEqual([]);
  });
});
