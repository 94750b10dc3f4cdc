import { describe, expect, it } from "vitest";
import { slackSignature } from "../../../src/features/channels/slack/signature";
import { call, freshTenant, type TestTenant } from "../support/helpers";

/**
 * The Slack Request URL's answers in workerd (SPEC §4.1), and the inbox's dedupe of what it
 * accepts. The Web API root points at a closed port: nothing here needs Slack to answer.
 */

const SECRET = "slack-signing-secret-0123456789abcdef";
const BOT_TOKEN = "xoxb-test-0000-fake";

async function slackTenant(extra: Record<string, unknown> = {}) {
  const tenant = await freshTenant("slack");
  const res = await tenant.config({
    channels: {
      slack: {
        enabled: true,
        mode: "http",
        botToken: BOT_TOKEN,
        signingSecret: SECRET,
        apiRoot: "http://127.0.0.1:9/api/",
        groupPolicy: "open",
        ...extra,
      },
    },
  });
  expect(res.status, res.text).toBe(200);
  return tenant;
}

async function post(
  tenant: TestTenant,
  body: string,
  opts: { at?: number; secret?: string; unsigned?: boolean; contentType?: string; path?: string } = {},
) {
  const at = String(opts.at ?? Math.floor(Date.now() / 1000));
  const headers: Record<string, string> = { "content-type": opts.contentType ?? "application/json" };
  if (!opts.unsigned) {
    headers["x-slack-request-timestamp"] = at;
    headers["x-slack-signature"] = await slackSignature(opts.secret ?? SECRET, at, body);
  }
  return call(`${tenant.prefix}${opts.path ?? "/slack/events"}`, { method: "POST", token: null, headers, body });
}

let nextEvent = 0;
function event(channel: string, ts: string, extra: Record<string, unknown> = {}) {
  return JSON.stringify({
    type: "event_callback",
    team_id: "T0TEST",
    event_id: `EvW${++nextEvent}`,
    event: { type: "message", channel, channel_type: "channel", user: "U0BOB", text: "hi", ts, ...extra },
  });
}

async function updatesOf(tenant: TestTenant) {
  const res = await tenant.call("/v1/channels/status");
  expect(res.status, res.text).toBe(200);
  const account = res.data.channelAccounts.slack[0];
  return account.pendingUpdates + account.handledUpdates;
}

describe("Slack Request URL answers", () => {
  it("url_verification: the challenge when signed, 401 empty when not", async () => {
    const tenant = await slackTenant();
    const body = JSON.stringify({ token: "x", challenge: "chal-123", type: "url_verification" });
    const ok = await post(tenant, body);
    expect([ok.status, ok.data]).toEqual([200, { challenge: "chal-123" }]);
    expect(ok.headers.get("content-type")).toMatch(/application\/json/);
    const unsigned = await post(tenant, body, { unsigned: true });
    expect([unsigned.status, unsigned.text]).toEqual([401, ""]);
  });

  it("401 empty for a wrong secret, a stale and a future timestamp; nothing is stored", async () => {
    const tenant = await slackTenant();
    // Each timestamp is taken just before its request (the four take seconds on a loaded machine).
    // Just past the five minutes by 30 s, not 1 s: a request that reaches the handler a second
    // later on a loaded machine is then 300 s off, inside the window (the edge is a Node test's).
    const cases: Array<{ secret?: string; offset?: number }> = [
      { secret: "wrong" },
      { offset: -600 },
      { offset: 600 },
      { offset: 330 },
    ];
    for (const { secret, offset } of cases) {
      const opts = offset === undefined ? { secret } : { at: Math.floor(Date.now() / 1000) + offset };
      const res = await post(tenant, event("C0OPEN", "1.000001"), opts);
      expect([res.status, res.text], JSON.stringify(opts)).toEqual([401, ""]);
    }
    expect(await updatesOf(tenant)).toBe(0);
  });

  it("400 for a signed non-JSON body, 404 for an interactivity form, 405 for GET, 413 past 1 MB", async () => {
    const tenant = await slackTenant();
    const bad = await post(tenant, "{nope");
    expect([bad.status, bad.text]).toEqual([400, ""]);
    const form = await post(tenant, "payload=%7B%7D", { contentType: "application/x-www-form-urlencoded" });
    expect([form.status, form.text]).toEqual([404, ""]);
    const get = await call(`${tenant.prefix}/slack/events`, { token: null });
    expect([get.status, get.text]).toEqual([405, "Method Not Allowed"]);
    const huge = await post(tenant, event("C0OPEN", "1.000002", { text: "x".repeat(1_100_000) }));
    expect(huge.status).toBe(413);
    expect(await updatesOf(tenant)).toBe(0);
  });

  it("a signed event is committed before its empty 200; the same message again, or as app_mention, is one update", async () => {
    const tenant = await slackTenant();
    const first = event("C0OPEN", "1795705000.000100");
    const res = await post(tenant, first);
    expect([res.status, res.text]).toEqual([200, ""]);
    expect(await updatesOf(tenant)).toBe(1);
    expect((await post(tenant, first)).status).toBe(200);
    const mention = event("C0OPEN", "1795705000.000100", { type: "app_mention", channel_type: undefined });
    expect((await post(tenant, mention)).status).toBe(200);
    await Promise.all([1, 2, 3].map(() => post(tenant, event("C0OPEN", "1795705000.000200"))));
    expect(await updatesOf(tenant)).toBe(2);
  });

  it("the default tenant's Request URL is also at the root", async () => {
    const config = await call("/v1/config", {
      method: "PUT",
      json: { channels: { slack: { mode: "http", botToken: BOT_TOKEN, signingSecret: SECRET } } },
    });
    expect(config.status, config.text).toBe(200);
    const body = JSON.stringify({ challenge: "at-root", type: "url_verification" });
    const at = String(Math.floor(Date.now() / 1000));
    const res = await call("/slack/events", {
      method: "POST",
      token: null,
      headers: {
        "content-type": "application/json",
        "x-slack-request-timestamp": at,
        "x-slack-signature": await slackSignature(SECRET, at, body),
      },
      body,
    });
    expect([res.status, res.data]).toEqual([200, { challenge: "at-root" }]);
  });

  it("the path is not served without a signing secret, nor at another path (the service's own answer)", async () => {
    const tenant = await slackTenant({ signingSecret: undefined });
    const res = await post(tenant, event("C0OPEN", "1.1"));
    // Not Slack's empty 401: the tenant API's answer to a request without a bearer token.
    expect([res.status, res.data?.ok, res.data?.error?.type]).toEqual([401, false, "unauthorized"]);
    const other = await slackTenant();
    const elsewhere = await post(other, event("C0OPEN", "1.2"), { path: "/slack/other" });
    expect([elsewhere.status, elsewhere.data?.ok]).toEqual([401, false]);
    expect(await updatesOf(other)).toBe(0);
  });
});
