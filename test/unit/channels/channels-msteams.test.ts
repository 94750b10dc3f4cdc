import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  CONVERSATION_REFERENCE_SCHEMA,
  ConversationReferenceStore,
} from "../../../src/features/channels/conversation-reference-store";
import { messageText, splitConversationId } from "../../../src/features/channels/msteams/activity";
import { msTeamsInbound } from "../../../src/features/channels/msteams/adapter";
import type { MsTeamsActivity } from "../../../src/features/channels/msteams/bot-framework-schemas";
import { TOKEN_CLOCK_SKEW_MS } from "../../../src/features/channels/msteams/bot-token";
import {
  type ConversationReferences,
  conversationIdOf,
  MsTeamsConnector,
} from "../../../src/features/channels/msteams/connector";
import { msTeamsPairingMessage } from "../../../src/features/channels/msteams/format";
import { checkMsTeamsAuthorization, msTeamsActivityVerdict } from "../../../src/features/channels/msteams/ingress";
import { decideMsTeams, type MsTeamsRoutingInput } from "../../../src/features/channels/msteams/routing";
import { checkServiceUrl } from "../../../src/features/channels/msteams/service-url";
import { forgetBotFrameworkKeys } from "../../../src/features/channels/msteams/signing-keys";
import { isAuthFailure } from "../../../src/features/channels/send-health";
import type { OutboundPolicy } from "../../../src/policy/outbound-url";
import type { MsTeamsConfig } from "../../../src/protocol/channels";
import { migrate } from "../../../src/storage/migrations";
import { toBase64Url } from "../../../src/util/encoding";
import { MemoryStorage } from "../support/memory-storage";
import { sendEveryPart } from "../support/send-every-part";

const APP_ID = "00000000-0000-4000-8000-00000000a11d";
const APP_PASSWORD = "fake-msteams-app-password";
const POLICY: OutboundPolicy = { allowLoopback: true, allowedHosts: [], ownOrigins: [] };
const FAKE = join(process.cwd(), "test/peers/fake-msteams.mjs");

let fake: ChildProcess;
let origin = "";

async function freePort(): Promise<number> {
  return new Promise((done) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

beforeAll(async () => {
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  fake = spawn(process.execPath, [FAKE, String(port)], { stdio: ["ignore", "ignore", "pipe"] });
  await new Promise<void>((ready, failed) => {
    fake.stderr!.on("data", (chunk) => chunk.toString().includes("fake Bot Connector") && ready());
    fake.on("exit", (code) => failed(new Error(`fake exited ${code}`)));
  });
});
afterAll(() => {
  fake?.kill();
});
beforeEach(async () => {
  forgetBotFrameworkKeys();
  await fetch(`${origin}/__reset`, { method: "POST" });
});

async function signed(claims: Record<string, unknown> = {}, wrongKey = false): Promise<string> {
  const res = await fetch(`${origin}/__sign`, { method: "POST", body: JSON.stringify({ claims, wrongKey }) });
  return ((await res.json()) as { token: string }).token;
}
const openIdUrl = () => `${origin}/v1/.well-known/openidconfiguration`;
const authorize = async (authorization: string | null, nowMs = Date.now()) =>
  checkMsTeamsAuthorization({ authorization, appId: APP_ID, openIdUrl: openIdUrl(), policy: POLICY, nowMs });
type FakeCall = { kind: string; conversationId?: string; status: number; body: Record<string, unknown> };
const calls = async (): Promise<FakeCall[]> =>
  ((await (await fetch(`${origin}/__calls`)).json()) as { calls: FakeCall[] }).calls;

describe("Bot Framework token (signed by the fake Bot Connector's own key, fetched from its OpenID metadata)", () => {
  it("accepts the connector's token and refuses a missing, foreign-key, wrong-audience, wrong-issuer or expired one", async () => {
    expect(await authorize(`Bearer ${await signed()}`)).toMatchObject({
      ok: true,
      claims: { aud: APP_ID },
      endorsements: ["msteams"],
    });
    expect(await authorize(null)).toMatchObject({ ok: false, status: 401, reason: "no bearer token" });
    expect(await authorize(`Bearer ${await signed({}, true)}`)).toMatchObject({
      ok: false,
      reason: "invalid signature",
    });
    expect(await authorize(`Bearer ${await signed({ aud: "someone-else" })}`)).toMatchObject({
      ok: false,
      reason: "wrong audience",
    });
    expect(await authorize(`Bearer ${await signed({ iss: "https://evil.example" })}`)).toMatchObject({
      ok: false,
      reason: "wrong issuer",
    });
    const hourAgo = Math.floor(Date.now() / 1000) - 3600;
    expect(await authorize(`Bearer ${await signed({ exp: hourAgo })}`)).toMatchObject({
      ok: false,
      reason: "expired",
    });
  });

  it("answers 503 (the connector retries) when the signing keys cannot be fetched: a closed port, or a host the outbound guard refuses", async () => {
    const token = `Bearer ${await signed()}`;
    const closed = await checkMsTeamsAuthorization({
      authorization: token,
      appId: APP_ID,
      openIdUrl: "http://127.0.0.1:9/v1/.well-known/openidconfiguration",
      policy: POLICY,
      nowMs: Date.now(),
    });
    expect(closed).toMatchObject({ ok: false, status: 503 });
    const guarded = await checkMsTeamsAuthorization({
      authorization: token,
      appId: APP_ID,
      openIdUrl: openIdUrl(),
      policy: { ...POLICY, allowLoopback: false },
      nowMs: Date.now(),
    });
    expect(guarded).toMatchObject({
      ok: false,
      status: 503,
      reason: expect.stringContaining("outbound request refused"),
    });
  });

  it("reads the key set once, and again for an unknown key id only after 5 minutes", async () => {
    const keyFetches = async () => ((await (await fetch(`${origin}/__keys`)).json()) as { fetches: number }).fetches;
    const now = Date.now();
    await authorize(`Bearer ${await signed()}`, now);
    await authorize(`Bearer ${await signed()}`, now + 1000);
    expect(await keyFetches()).toBe(1);
    const unknownKid = (await signed()).replace(
      /^[^.]+/,
      toBase64Url(new TextEncoder().encode('{"alg":"RS256","kid":"other"}')),
    );
    expect(await authorize(`Bearer ${unknownKid}`, now + 2000)).toMatchObject({ reason: "unknown key" });
    expect(await keyFetches()).toBe(1);
    await authorize(`Bearer ${unknownKid}`, now + 6 * 60 * 1000);
    expect(await keyFetches()).toBe(2);
  });

  it("refuses an unsigned (alg none) token whatever its claims", async () => {
    const part = (value: object) => toBase64Url(new TextEncoder().encode(JSON.stringify(value)));
    const token = `${part({ alg: "none", kid: "fake-msteams-key" })}.${part({ iss: "https://api.botframework.com", aud: APP_ID, exp: 9e9 })}.c2ln`;
    expect(await authorize(`Bearer ${token}`)).toMatchObject({ ok: false, reason: "unsupported algorithm" });
  });

  it("allows the SDKs' 5-minute clock skew on expiry and not-before, and no more", async () => {
    const token = `Bearer ${await signed({ exp: 1000, nbf: 900 })}`;
    expect((await authorize(token, 1000_000 + TOKEN_CLOCK_SKEW_MS - 1000)).ok).toBe(true);
    expect(await authorize(token, 1000_000 + TOKEN_CLOCK_SKEW_MS + 1000)).toMatchObject({ reason: "expired" });
    expect(await authorize(token, 900_000 - TOKEN_CLOCK_SKEW_MS - 1000)).toMatchObject({ reason: "not yet valid" });
  });
});

describe("the messaging endpoint's body", () => {
  const claims = (serviceurl: string) => ({
    claims: { iss: "https://api.botframework.com", aud: APP_ID, exp: 9e9, serviceurl },
    endorsements: ["msteams"],
  });
  const body = (extra: Record<string, unknown>) =>
    JSON.stringify({
      type: "message",
      id: "1700000000111",
      serviceUrl: "https://smba.trafficmanager.net/amer/",
      channelId: "msteams",
      conversation: { id: "a:1DM", conversationType: "personal" },
      from: { id: "29:alice", aadObjectId: "aad-alice" },
      text: "hi",
      ...extra,
    });

  it("keys a message by conversation and activity id (a thread reply by its root conversation)", () => {
    expect(msTeamsActivityVerdict(claims("https://smba.trafficmanager.net/amer"), body({}))).toMatchObject({
      ok: true,
      updateId: "a:1DM:1700000000111",
    });
    const reply = body({
      conversation: { id: "19:c@thread.tacv2;messageid=1700000000001", conversationType: "channel" },
    });
    expect(msTeamsActivityVerdict(claims("https://smba.trafficmanager.net/amer/"), reply)).toMatchObject({
      updateId: "19:c@thread.tacv2:1700000000111",
    });
  });

  it("refuses a serviceUrl other than the token's, or one that is not a Bot Connector, even when the token vouches for it", () => {
    expect(msTeamsActivityVerdict(claims("https://smba.trafficmanager.net/emea/"), body({}))).toMatchObject({
      ok: false,
      status: 401,
      reason: "serviceUrl differs from the token's",
    });
    const evil = "https://attacker.example/";
    expect(msTeamsActivityVerdict(claims(evil), body({ serviceUrl: evil }))).toMatchObject({ ok: false, status: 401 });
  });

  it("refuses an activity of a channel the signing key is not endorsed for", () => {
    const skype = body({ channelId: "skype" });
    expect(msTeamsActivityVerdict(claims("https://smba.trafficmanager.net/amer/"), skype)).toMatchObject({
      ok: false,
      status: 401,
      reason: "signing key not endorsed for channel skype",
    });
  });

  it("answers other activity types without storing them, and a non-activity 400", () => {
    const update = body({ type: "conversationUpdate" });
    expect(msTeamsActivityVerdict(claims("https://smba.trafficmanager.net/amer/"), update)).toEqual({
      ok: true,
      ignored: "activity type conversationUpdate",
    });
    expect(msTeamsActivityVerdict(claims("x"), "not json")).toMatchObject({ ok: false, status: 400 });
    expect(msTeamsActivityVerdict(claims("x"), "[1]")).toMatchObject({ ok: false, status: 400 });
  });
});

describe("serviceUrl rule (the bot's token goes only to a Bot Connector)", () => {
  it("takes Microsoft's connectors and the tenant's apiRoot origin, nothing else", () => {
    expect(checkServiceUrl("https://smba.trafficmanager.net/amer/").ok).toBe(true);
    expect(checkServiceUrl("https://smba.infra.gcc.teams.microsoft.com/").ok).toBe(true);
    expect(checkServiceUrl("https://evil.trafficmanager.net/").ok).toBe(false);
    expect(checkServiceUrl("https://botframework.com.evil.example/").ok).toBe(false);
    expect(checkServiceUrl("http://smba.trafficmanager.net/").ok).toBe(false);
    expect(checkServiceUrl("http://127.0.0.1:9/").ok).toBe(false);
    expect(checkServiceUrl("http://127.0.0.1:9/x/", "http://127.0.0.1:9/").ok).toBe(true);
    expect(checkServiceUrl("http://127.0.0.1:10/", "http://127.0.0.1:9/").ok).toBe(false);
  });
});

describe("routing", () => {
  const MSTEAMS: MsTeamsConfig = { appId: APP_ID, appPassword: APP_PASSWORD };
  const base = (activity: Partial<MsTeamsActivity>, extra: Partial<MsTeamsRoutingInput> = {}): MsTeamsRoutingInput => ({
    activity: {
      type: "message",
      id: "1700000000111",
      serviceUrl: "https://smba.trafficmanager.net/amer/",
      from: { id: "29:alice", aadObjectId: "AAD-Alice", name: "Alice" },
      recipient: { id: `28:${APP_ID}`, name: "Claw" },
      text: "hello",
      ...activity,
    } as MsTeamsActivity,
    msteams: MSTEAMS,
    config: {},
    agentId: "main",
    approved: new Set(),
    ...extra,
  });
  const dm = { conversation: { id: "a:1DM", conversationType: "personal" } };
  const channelMessage = (text: string, mentioned: boolean, conversationId = "19:General@thread.tacv2") => ({
    conversation: { id: conversationId, conversationType: "channel" },
    channelData: { team: { id: "19:team@thread.tacv2" } },
    text,
    ...(mentioned
      ? { entities: [{ type: "mention", text: "<at>Claw</at>", mentioned: { id: `28:${APP_ID}`, name: "Claw" } }] }
      : {}),
  });

  it("asks an unknown DM sender to pair, and answers an approved one in the main session", () => {
    expect(decideMsTeams(base(dm))).toMatchObject({
      action: "pairing",
      ask: { senderId: "AAD-Alice", chatId: "a:1DM" },
    });
    expect(decideMsTeams(base(dm, { approved: new Set(["AAD-Alice"]) }))).toMatchObject({
      action: "turn",
      turn: {
        sessionKey: "agent:main:main",
        text: "hello",
        replyTarget: { channel: "msteams", to: "msteams:conversation:a:1DM" },
      },
    });
  });

  it("keys DMs per peer under session.dmScope, and takes allowFrom by AAD object id", () => {
    const input = base(dm, {
      config: { session: { dmScope: "per-channel-peer" } },
      msteams: { ...MSTEAMS, allowFrom: ["msteams:aad-alice"] },
    });
    expect(decideMsTeams(input)).toMatchObject({ turn: { sessionKey: "agent:main:msteams:direct:aad-alice" } });
  });

  it("answers a channel only when the bot is <at>-mentioned, in the thread of the asking message", () => {
    const open = { ...MSTEAMS, groupPolicy: "open" as const };
    expect(decideMsTeams(base(channelMessage("hello all", false), { msteams: open }))).toMatchObject({
      action: "ignore",
      reason: "no mention",
    });
    expect(decideMsTeams(base(channelMessage("<at>Claw</at> status?", true), { msteams: open }))).toMatchObject({
      action: "turn",
      turn: {
        sessionKey: "agent:main:msteams:channel:19:general@thread.tacv2",
        text: "status?",
        replyTarget: { to: "msteams:conversation:19:General@thread.tacv2", threadId: "1700000000111" },
      },
    });
  });

  it("keeps a reply chain in its channel's session and answers into the chain", () => {
    const open = { ...MSTEAMS, groupPolicy: "open" as const };
    const reply = channelMessage("<at>Claw</at> more", true, "19:General@thread.tacv2;messageid=1700000000001");
    expect(decideMsTeams(base(reply, { msteams: open }))).toMatchObject({
      turn: {
        sessionKey: "agent:main:msteams:channel:19:general@thread.tacv2",
        replyTarget: { threadId: "1700000000001" },
      },
    });
  });

  it("drops channels under the default allowlist policy unless the team is listed, and follows requireMention per channel", () => {
    expect(decideMsTeams(base(channelMessage("<at>Claw</at> hi", true)))).toMatchObject({ action: "ignore" });
    const listed = {
      ...MSTEAMS,
      teams: { "19:team@thread.tacv2": { channels: { "19:General@thread.tacv2": { requireMention: false } } } },
    };
    expect(decideMsTeams(base(channelMessage("no mention", false), { msteams: listed }))).toMatchObject({
      action: "turn",
    });
    const other = channelMessage("<at>Claw</at> hi", true, "19:Other@thread.tacv2");
    expect(decideMsTeams(base(other, { msteams: listed }))).toMatchObject({ action: "ignore" });
  });

  it("answers a group chat (a sender in groupAllowFrom, mentioned) in its group session, not in a thread", () => {
    const group = {
      conversation: { id: "19:meeting_abc@thread.v2", conversationType: "groupChat" },
      text: "<at>Claw</at> hi",
      entities: [{ type: "mention", text: "<at>Claw</at>", mentioned: { id: `28:${APP_ID}` } }],
    };
    expect(decideMsTeams(base(group))).toMatchObject({ action: "ignore", reason: "group not allowed" });
    const decision = decideMsTeams(base(group, { msteams: { ...MSTEAMS, groupAllowFrom: ["aad-alice"] } }));
    expect(decision).toMatchObject({
      turn: { sessionKey: "agent:main:msteams:group:19:meeting_abc@thread.v2", text: "hi" },
    });
    expect(decision.action === "turn" && "threadId" in decision.turn.replyTarget).toBe(false);
  });

  it("ignores the bot's own messages, other activity types and another Azure tenant", () => {
    expect(decideMsTeams(base({ ...dm, from: { id: `28:${APP_ID}` } }))).toMatchObject({ action: "ignore" });
    expect(decideMsTeams(base({ ...dm, type: "messageReaction" }))).toMatchObject({ action: "ignore" });
    const foreign = base(
      { conversation: { id: "a:1DM", conversationType: "personal", tenantId: "t-other" } },
      {
        msteams: { ...MSTEAMS, tenantId: "t-mine", dmPolicy: "open" },
      },
    );
    expect(decideMsTeams(foreign)).toMatchObject({ action: "ignore", reason: "another Azure tenant" });
  });

  it("reads Teams' HTML text and splits reply chains", () => {
    expect(messageText({ type: "message", text: "<p>a &amp; b<br>c</p>" }, APP_ID)).toBe("a & b\nc");
    expect(splitConversationId("19:x@thread.tacv2;messageid=42")).toEqual({
      conversationId: "19:x@thread.tacv2",
      threadRootId: "42",
    });
    expect(msTeamsPairingMessage("AAD-Alice", "ABCD2345")).toContain("Your Microsoft Teams user id: AAD-Alice");
  });
});

describe("sending through the fake Bot Connector", () => {
  const references = (serviceUrl: () => string): ConversationReferences => ({
    serviceUrl: async () => serviceUrl(),
  });
  const connector = (serviceUrl = () => `${origin}/`, password = APP_PASSWORD) =>
    new MsTeamsConnector(
      {
        appId: APP_ID,
        appPassword: password,
        tokenUrl: `${origin}/botframework.com/oauth2/v2.0/token`,
        apiRoot: origin,
      },
      references(serviceUrl),
      POLICY,
    );
  const target = (threadId?: string) => ({
    channel: "msteams",
    to: "msteams:conversation:19:General@thread.tacv2",
    ...(threadId ? { threadId } : {}),
  });

  it("posts a long reply in 4,000-character parts as Markdown, into the thread, with one cached token", async () => {
    const text = `${`${"word ".repeat(600)}\n`.repeat(3)}**done**`;
    const delivery = { target: target("1700000000001"), message: text, kind: "channel-reply" };
    expect(await sendEveryPart(connector().sender(), delivery)).toEqual({ partsSent: 3 });
    const log = await calls();
    expect(log.filter((call) => call.kind === "token")).toHaveLength(1);
    const posts = log.filter((call) => call.kind === "activity");
    expect(posts.map((call) => call.conversationId)).toEqual(
      Array(3).fill("19:General@thread.tacv2;messageid=1700000000001"),
    );
    expect(posts.every((call) => (call.body.text as string).length <= 4000)).toBe(true);
    expect(posts[2]!.body).toMatchObject({ textFormat: "markdown", replyToId: "1700000000001" });
    expect(posts[2]!.body.text).toMatch(/\*\*done\*\*$/);
  });

  it("declares the app password and the access token in use as credentials (the outbox redacts echoes)", async () => {
    const sender = connector().sender();
    await sender.send({ target: target(), message: "hi", kind: "channel-reply" }, 0);
    expect(sender.credentials).toEqual([APP_PASSWORD, expect.stringMatching(/^fake-bf-token-/)]);
  });

  it("stops at a 500 and resumes after the parts already sent", async () => {
    await fetch(`${origin}/__fail`, { method: "POST", body: JSON.stringify({ path: "activities", count: 1 }) });
    const sender = connector().sender();
    const delivery = { target: target(), message: "one", kind: "channel-reply" };
    expect(await sender.send(delivery, 0)).toMatchObject({ partsSent: 0, error: expect.stringContaining("500") });
    expect(await sender.send(delivery, 0)).toEqual({ partsSent: 1 });
    expect((await calls()).filter((call) => call.kind === "activity").map((call) => call.status)).toEqual([500, 201]);
  });

  it("a refused app password is an auth failure channels.status names (msteams answered 401), without the password", async () => {
    const outcome = await connector(undefined, "not-the-password")
      .sender()
      .send({ target: target(), message: "hi", kind: "channel-reply" }, 0);
    expect(outcome).toMatchObject({
      partsSent: 0,
      error: expect.stringMatching(/^msteams answered 401: token endpoint/),
    });
    expect(isAuthFailure("msteams", outcome.error!)).toBe(true);
    expect(outcome.error).not.toContain("not-the-password");
  });

  it("sends nothing, not even a token request, to a serviceUrl that is not a Bot Connector", async () => {
    const outcome = await connector(() => "https://attacker.example/")
      .sender()
      .send({ target: target(), message: "hi", kind: "channel-reply" }, 0);
    expect(outcome).toMatchObject({ partsSent: 0, error: "serviceUrl host attacker.example is not a Bot Connector" });
    expect(await calls()).toEqual([]);
  });

  it("names a conversation as a session's route, OpenClaw's `conversation:` target or its id; a user is no conversation", () => {
    expect(conversationIdOf("msteams:conversation:19:General@thread.tacv2")).toBe("19:General@thread.tacv2");
    expect(conversationIdOf("conversation:a:1DM")).toBe("a:1DM");
    expect(conversationIdOf("a:1DM")).toBe("a:1DM");
    expect(conversationIdOf("user:AAD-Alice")).toBeNull();
    expect(conversationIdOf("+15551234567")).toBeNull();
  });

  it("sends the typing activity to the conversation", async () => {
    await connector().typing("a:1DM");
    expect((await calls()).find((call) => call.kind === "activity")).toMatchObject({
      conversationId: "a:1DM",
      body: { type: "typing" },
    });
  });
});

describe("the inbound adapter", () => {
  const activity = JSON.stringify({
    type: "message",
    id: "1700000000111",
    serviceUrl: "https://smba.trafficmanager.net/amer/",
    conversation: { id: "a:1DM", conversationType: "personal" },
    from: { id: "29:alice", aadObjectId: "AAD-Alice" },
    text: "hello",
  });
  const remembered: string[][] = [];
  const adapter = (msteams: MsTeamsConfig | undefined) =>
    msTeamsInbound({
      msteams: () => msteams,
      connector: async () => null,
      remember: (conversationId, serviceUrl) => remembered.push([conversationId, serviceUrl]),
    });

  it("decides a stored activity, and drops it when Teams is not configured or disabled", async () => {
    const config = { appId: APP_ID, appPassword: APP_PASSWORD };
    expect(await adapter(config).decide({ body: activity, config: {}, approved: new Set() })).toMatchObject({
      action: "pairing",
      ask: { senderId: "AAD-Alice" },
    });
    expect(await adapter(undefined).decide({ body: activity, config: {}, approved: new Set() })).toBeNull();
    expect(remembered).toEqual([["a:1DM", "https://smba.trafficmanager.net/amer/"]]);
    const off = { ...config, enabled: false };
    expect(await adapter(off).decide({ body: activity, config: {}, approved: new Set() })).toBeNull();
  });
});

describe("conversation references (the serviceUrl a reply goes to)", () => {
  it("keeps each conversation's latest serviceUrl, an older activity not overwriting a newer one", async () => {
    const storage = new MemoryStorage();
    migrate(storage.asStorage, [CONVERSATION_REFERENCE_SCHEMA]);
    const store = new ConversationReferenceStore(storage.sql);
    expect(await store.reference("msteams", "a:1DM")).toBeNull();
    store.remember("msteams", "a:1DM", "https://smba.trafficmanager.net/amer/", 2);
    store.remember("msteams", "a:1DM", "https://smba.trafficmanager.net/emea/", 1);
    expect(await store.reference("msteams", "a:1DM")).toBe("https://smba.trafficmanager.net/amer/");
    store.remember("msteams", "a:1DM", "https://smba.trafficmanager.net/emea/", 3);
    expect(await store.reference("msteams", "a:1DM")).toBe("https://smba.trafficmanager.net/emea/");
    expect(await store.reference("other", "a:1DM")).toBeNull();
  });

  it("is bounded: past its limit the least recently seen conversation is forgotten", async () => {
    const storage = new MemoryStorage();
    migrate(storage.asStorage, [CONVERSATION_REFERENCE_SCHEMA]);
    const store = new ConversationReferenceStore(storage.sql, Date.now, 3);
    for (let i = 1; i <= 4; i++) store.remember("msteams", `c${i}`, `https://smba.trafficmanager.net/${i}/`, i);
    expect(await store.reference("msteams", "c1")).toBeNull();
    expect(await store.reference("msteams", "c4")).toBe("https://smba.trafficmanager.net/4/");
    expect(storage.sql.exec("SELECT COUNT(*) AS n FROM channel_conversation_references").one().n).toBe(3);
  });
});
