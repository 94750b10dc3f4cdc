import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { googleChatAppOf } from "../../../src/features/channels/googlechat/adapter";
import { ChatApi, GOOGLECHAT_TYPING_TEXT } from "../../../src/features/channels/googlechat/chat-api";
import {
  googleChatSender,
  placeholderIdOf,
  postTypingPlaceholder,
} from "../../../src/features/channels/googlechat/sender";
import {
  type ServiceAccountKey,
  ServiceAccountTokens,
} from "../../../src/features/channels/googlechat/service-account";
import type { OutboundPolicy } from "../../../src/policy/outbound-url";
import type { TenantConfig } from "../../../src/protocol/config";
import { sendEveryPart } from "../support/send-every-part";

/**
 * The Google Chat sender against the fake Google (test/peers/fake-googlechat.mjs, its own process
 * on 127.0.0.1): the service-account token exchange, client message ids, the placeholder edited
 * into the reply, and a whole resend (a crash after Google's 200, before the outbox's record)
 * that adds no message.
 */

const FAKE = join(process.cwd(), "test/peers/fake-googlechat.mjs");
type FakeCall = { kind: string; method: string; path: string; body: { text?: string }; status: number };
let fake: ChildProcess;
let origin = "";
let api: ChatApi;
let unauthorized = 0;

async function freePort(): Promise<number> {
  return new Promise((done) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

async function control(path: string, body?: unknown): Promise<Record<string, unknown>> {
  const init = body === undefined ? {} : { method: "POST", body: JSON.stringify(body) };
  return (await (await fetch(`${origin}${path}`, init)).json()) as Record<string, unknown>;
}

beforeAll(async () => {
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  fake = spawn(process.execPath, [FAKE, String(port)], { stdio: ["ignore", "ignore", "pipe"] });
  await new Promise<void>((ready, failed) => {
    fake.stderr!.on("data", (chunk) => chunk.toString().includes("fake Google") && ready());
    fake.on("exit", (code) => failed(new Error(`fake exited ${code}`)));
  });
  const account = (await control("/__service-account")) as ServiceAccountKey;
  const tokens = new ServiceAccountTokens(account, `${origin}/token`, (url, init) => fetch(url, init));
  api = new ChatApi(
    origin,
    () => tokens.token(Date.now()),
    (url, init) => fetch(url, init),
  );
}, 30_000);

afterAll(() => {
  fake?.kill();
});

async function messages(): Promise<Array<{ name: string; text: string }>> {
  return (await control("/__messages")).messages as Array<{ name: string; text: string }>;
}
const fakeCalls = async () => (await control("/__calls")).calls as FakeCall[];

const sender = () =>
  googleChatSender(
    api,
    () => [],
    () => unauthorized++,
  );
const reply = (space: string, inbound: string, message: string) => ({
  idempotencyKey: `googlechat:${inbound}:reply`,
  kind: "reply",
  target: { channel: "googlechat", to: `googlechat:${space}` },
  message,
});

describe("Google Chat sender (client message ids)", () => {
  it("edits the turn's placeholder into the reply's first part, creates the rest, and a full resend adds nothing", async () => {
    const inbound = "spaces/DMsend/messages/in1.in1";
    await postTypingPlaceholder(api, "spaces/DMsend", inbound);
    const placeholder = `spaces/DMsend/messages/${await placeholderIdOf(inbound)}`;
    expect((await messages()).find((m) => m.name === placeholder)?.text).toBe(GOOGLECHAT_TYPING_TEXT);
    const text = `**bold** ${"y".repeat(9000)}`;
    const delivery = reply("spaces/DMsend", inbound, text);
    expect(await sendEveryPart(sender(), delivery)).toEqual({ partsSent: 3 });
    const sent = (await messages()).filter((m) => m.name.startsWith("spaces/DMsend/"));
    expect(sent.map((m) => m.name)).toEqual([placeholder, `${placeholder}-1`, `${placeholder}-2`]);
    expect(sent.map((m) => m.text).join("")).toBe(text);
    // The outbox never recorded the parts (a crash): everything again, and still three messages.
    expect(await sendEveryPart(sender(), delivery)).toEqual({ partsSent: 3 });
    expect((await messages()).filter((m) => m.name.startsWith("spaces/DMsend/"))).toHaveLength(3);
  });

  it("creates the first part under the placeholder's id when the placeholder never got there", async () => {
    const inbound = "spaces/DMnoph/messages/in2.in2";
    expect(await sender().send(reply("spaces/DMnoph", inbound, "no placeholder"), 0)).toEqual({ partsSent: 1 });
    const [message] = (await messages()).filter((m) => m.name.startsWith("spaces/DMnoph/"));
    expect(message).toEqual(
      expect.objectContaining({
        name: `spaces/DMnoph/messages/${await placeholderIdOf(inbound)}`,
        text: "no placeholder",
      }),
    );
  });

  it("reports a 500 with the part it stopped at, and a retry from there sends the rest once", async () => {
    await control("/__fail", { kind: "create", count: 1, status: 500 });
    const delivery = {
      idempotencyKey: "hook:run-1",
      kind: "reply",
      target: { channel: "googlechat", to: "spaces/AAAAhook" },
      message: "z".repeat(4500),
    };
    const first = await sender().send(delivery, 0);
    expect(first).toMatchObject({ partsSent: 0, error: expect.stringMatching(/^Chat API answered 500/) });
    expect(await sendEveryPart(sender(), delivery, first.partsSent)).toEqual({ partsSent: 2 });
    expect((await messages()).filter((m) => m.name.startsWith("spaces/AAAAhook/"))).toHaveLength(2);
  });

  it("sends a pairing code as one plain message; refuses a target that is not a space, for good", async () => {
    const pairing = { kind: "pairing", target: { channel: "googlechat", to: "spaces/DMpair" }, message: "code" };
    expect(await sender().send(pairing, 0)).toEqual({ partsSent: 1 });
    const calls = (await fakeCalls()).filter((c) => c.path.startsWith("/v1/spaces/DMpair/"));
    expect(calls.map((c) => c.path)).toEqual(["/v1/spaces/DMpair/messages"]);
    const wrong = { kind: "reply", target: { channel: "googlechat", to: "users/123" }, message: "x" };
    expect(await sender().send(wrong, 0)).toMatchObject({ partsSent: 0, final: true });
  });

  it("drops the cached token when the Chat API answers 401", async () => {
    await control("/__fail", { kind: "create", count: 1, status: 401 });
    const before = unauthorized;
    const delivery = { kind: "reply", target: { channel: "googlechat", to: "spaces/AAAA401" }, message: "x" };
    expect(await sender().send(delivery, 0)).toMatchObject({ partsSent: 0, error: expect.any(String) });
    expect(unauthorized).toBe(before + 1);
  });

  it("declares the key file, its private key and the access token in use for the outbox's redaction", async () => {
    const account = (await control("/__service-account")) as ServiceAccountKey;
    const keyText = JSON.stringify(account);
    const config = {
      channels: { googlechat: { serviceAccount: keyText, apiRoot: origin, tokenUrl: `${origin}/token` } },
    } as TenantConfig;
    const policy: OutboundPolicy = { allowLoopback: true, allowedHosts: [], ownOrigins: [] };
    const app = await googleChatAppOf(config, async () => null, policy);
    const appSender = app!.sender();
    const delivery = { kind: "reply", target: { channel: "googlechat", to: "spaces/AAAAred" }, message: "x" };
    expect(await appSender.send(delivery, 0)).toEqual({ partsSent: 1 });
    expect(appSender.credentials).toEqual([keyText, account.private_key, expect.stringMatching(/^ya29\.fake-/)]);
    // Not configured, or a key without its private half: no sender.
    expect(await googleChatAppOf({} as TenantConfig, async () => null, policy)).toBeNull();
    const broken = { channels: { googlechat: { serviceAccount: '{"client_email":"x"}' } } } as TenantConfig;
    expect(await googleChatAppOf(broken, async () => null, policy)).toBeNull();
  });
});
