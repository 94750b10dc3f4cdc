import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lineInbound, lineSender } from "../../../src/features/channels/line/adapter";
import { LineMessagingApi } from "../../../src/features/channels/line/messaging-api";
import { LINE_REPLY_TOKEN_TTL_MS } from "../../../src/features/channels/line/send-plan";
import { lineSignature } from "../../../src/features/channels/line/signature";
import { lineWebhook } from "../../../src/features/channels/line/webhook";
import { queueChannelReply } from "../../../src/features/channels/reply";
import { webhookRequestOf } from "../../../src/features/channels/webhook";
import type { RunRecord } from "../../../src/model/run-types";
import type { TenantConfig } from "../../../src/protocol/config";
import { tenantConfigSchema } from "../../../src/protocol/config";
// @ts-expect-error: a plain .mjs peer without types
import { FAKE_LINE_TOKEN, startFakeLine } from "../../peers/fake-line.mjs";

/**
 * LINE served (issue 47): the webhook handler's recorded answers and updates, the config half,
 * and the reply token carried as the run's reply hint — onto the reply's delivery, never the route.
 */

const SECRET = "line-channel-secret-0123456789ab";
const ALICE = "U1111111111111111111111111111aaaa";
const config = {
  channels: {
    line: { channelAccessToken: FAKE_LINE_TOKEN, channelSecret: SECRET, dmPolicy: "open", allowFrom: ["*"] },
  },
} as unknown as TenantConfig;

function event(text: string, extra: Record<string, unknown> = {}) {
  return {
    type: "message",
    mode: "active",
    timestamp: 1_795_884_549_080,
    webhookEventId: `01EV-${text}`,
    source: { type: "user", userId: ALICE },
    replyToken: `rt-${text}`,
    message: { id: `m-${text}`, type: "text", text },
    ...extra,
  };
}

async function hook(body: string, headers: Record<string, string> = {}, method = "POST", path = "/line/webhook") {
  const request = new Request(`https://edge.test/t/acme${path}`, {
    method,
    headers,
    ...(method === "POST" ? { body } : {}),
  });
  return lineWebhook(webhookRequestOf(request, path), {
    config,
    resolve: async () => null,
    nowMs: Date.now(),
    outbound: { allowLoopback: false, allowedHosts: [], ownOrigins: [] },
  });
}
const signed = async (body: string) => ({ "x-line-signature": await lineSignature(SECRET, body) });

describe("the LINE webhook handler", () => {
  it("answers as recorded and names one update per event, keyed by message id", async () => {
    const body = JSON.stringify({ destination: "Ubot", events: [event("one"), event("two")] });
    const answer = await hook(body, await signed(body));
    expect(answer?.response.status).toBe(200);
    expect(await answer?.response.json()).toEqual({ status: "ok" });
    expect(answer?.response.headers.get("x-openclaw-delivery-accepted")).toBe("durable");
    expect(answer?.updates.map((u) => u.updateId)).toEqual(["message:m-one", "message:m-two"]);

    const verify = JSON.stringify({ destination: "Ubot", events: [] });
    const verified = await hook(verify, await signed(verify));
    expect([verified?.response.status, verified?.response.headers.get("x-openclaw-delivery-accepted")]).toEqual([
      200,
      null,
    ]);
    expect(verified?.updates).toEqual([]);

    const refusals = [
      [await hook(body), 400, "Missing X-Line-Signature header"],
      [await hook(body, { "x-line-signature": await lineSignature("other", body) }), 401, "Invalid signature"],
      [await hook("{nope", await signed("{nope")), 400, "Invalid webhook payload"],
      [await hook(body, { ...(await signed(body)), "content-length": String(80 * 1024) }), 413, "Payload too large"],
    ] as const;
    for (const [refused, status, error] of refusals) {
      expect(refused?.response.status).toBe(status);
      expect(await refused?.response.json()).toEqual({ error });
      expect(refused?.updates).toEqual([]);
    }
    const large = JSON.stringify({ events: [], pad: "x".repeat(70 * 1024) });
    expect((await hook(large, await signed(large)))?.response.status).toBe(413);
    const get = await hook("", {}, "GET");
    expect([get?.response.status, await get?.response.text()]).toEqual([200, "OK"]);
    expect(await hook(body, await signed(body), "POST", "/line/other")).toBeNull();
  });
});

describe("channels.line config", () => {
  it("accepts OpenClaw's keys and refuses a credential it would not keep secret", () => {
    const line = { channelAccessToken: "t", channelSecret: "s", replyToMode: "off", groupAllowFrom: [ALICE] };
    expect(tenantConfigSchema.safeParse({ channels: { line } }).success).toBe(true);
    const nested = tenantConfigSchema.safeParse({ channels: { line: { accounts: { b: { channelSecret: "x" } } } } });
    expect(nested.error?.issues[0]?.path).toEqual(["channels", "line", "accounts", "b", "channelSecret"]);
  });
});

describe("the reply token as the run's reply hint", () => {
  let fake: { port: number; close(): Promise<void> };
  let api: LineMessagingApi;
  beforeAll(async () => {
    fake = await startFakeLine(0);
    api = new LineMessagingApi(FAKE_LINE_TOKEN, `http://127.0.0.1:${fake.port}`, {
      allowLoopback: true,
      allowedHosts: [],
      ownOrigins: [],
    });
  });
  afterAll(() => fake.close());
  const calls = async () =>
    ((await (await fetch(`http://127.0.0.1:${fake.port}/__calls`)).json()) as { calls: any[] }).calls;

  it("rides the turn and the pairing ask, not the reply target or the session seed", async () => {
    const inbound = lineInbound({ line: (c) => c.channels?.line, api: async () => api });
    const stored = JSON.stringify({ destination: "Ubot", event: event("hi") });
    const decision = await inbound.decide({ body: stored, config, approved: new Set() });
    expect(decision?.action).toBe("turn");
    if (decision?.action !== "turn") return;
    expect(decision.turn.replyHint).toEqual({ value: "rt-hi", atMs: 1_795_884_549_080 });
    expect(JSON.stringify([decision.turn.replyTarget, decision.turn.seed])).not.toContain("rt-hi");
    const pairingConfig = {
      channels: { line: { ...config.channels!.line, dmPolicy: "pairing", allowFrom: [] } },
    } as TenantConfig;
    const pairing = await inbound.decide({ body: stored, config: pairingConfig, approved: new Set() });
    expect(pairing).toMatchObject({ action: "pairing", ask: { replyHint: { value: "rt-hi" } } });
    const untimed = JSON.stringify({ event: { ...event("hi"), timestamp: undefined } });
    const without = await inbound.decide({ body: untimed, config, approved: new Set() });
    expect(without?.action === "turn" && without.turn.replyHint).toBeUndefined();
  });

  it("goes from the run to its reply's delivery only", () => {
    const queued: unknown[] = [];
    const target = { channel: "line", to: `line:${ALICE}` };
    const replyHint = { value: "rt-7", atMs: 1 };
    const run = { runId: "line:message:7", input: { replyTarget: target, replyHint } } as unknown as RunRecord;
    queueChannelReply({ enqueue: (input) => queued.push(input) }, run, "hello");
    expect(queued).toEqual([
      { idempotencyKey: "line:message:7:reply", kind: "channel-reply", target, message: "hello", replyHint },
    ]);
  });

  it("the sender replies with a fresh hint, pushes with a stale one", async () => {
    const sender = lineSender(api);
    const target = { channel: "line", to: `line:${ALICE}` };
    const fresh = { idempotencyKey: "r1:reply", target, kind: "channel-reply", message: "fresh" };
    const now = Date.now();
    expect(await sender.send({ ...fresh, replyHint: { value: "rt-fresh", atMs: now } } as never, 0)).toMatchObject({
      partsSent: 1,
    });
    const staleHint = { value: "rt-stale", atMs: now - LINE_REPLY_TOKEN_TTL_MS - 1000 };
    const stale = { idempotencyKey: "r2:reply", target, kind: "channel-reply", message: "stale", replyHint: staleHint };
    expect(await sender.send(stale as never, 0)).toMatchObject({ partsSent: 1 });
    const sent = (await calls()).filter((c: any) => c.path.startsWith("/v2/bot/message/"));
    expect(sent.map((c: any) => [c.path, c.body.replyToken ?? null, c.body.messages[0].text])).toEqual([
      ["/v2/bot/message/reply", "rt-fresh", "fresh"],
      ["/v2/bot/message/push", null, "stale"],
    ]);
  });
});
