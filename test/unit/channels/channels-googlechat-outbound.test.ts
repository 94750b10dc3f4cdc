import { beforeAll, describe, expect, it } from "vitest";
import {
  ChatApi,
  googleChatChunks,
  parseGoogleChatSpace,
  sendGoogleChatParts,
} from "../../../src/features/channels/googlechat/chat-api";
import { GOOGLE_TOKEN_URL, ServiceAccountTokens } from "../../../src/features/channels/googlechat/service-account";
import { verifyRs256Jwt } from "../../../src/util/jwt-rs256";
import { makeKeyAndCert } from "../support/rs256-fixture";

let keys: { privateKeyPem: string; certificatePem: string };
beforeAll(() => {
  keys = makeKeyAndCert();
});

type Call = { url: string; method: string; body: string; authorization: string };

/** An in-process stand-in for the token endpoint and the Chat API: records calls, answers as Google does. */
function recorder(answer: (call: Call, n: number) => Response) {
  const calls: Call[] = [];
  const fetchFn = async (url: string, init: RequestInit) => {
    const headers = new Headers(init.headers);
    const call = {
      url,
      method: init.method ?? "GET",
      body: String(init.body ?? ""),
      authorization: headers.get("authorization") ?? "",
    };
    calls.push(call);
    return answer(call, calls.length);
  };
  return { calls, fetchFn };
}

describe("ServiceAccountTokens", () => {
  it("exchanges an assertion signed by the service account and keeps the token until near expiry", async () => {
    const { calls, fetchFn } = recorder(
      (_c, n) => new Response(JSON.stringify({ access_token: `tok-${n}`, expires_in: 3600 }), { status: 200 }),
    );
    const key = {
      client_email: "bot@p.iam.gserviceaccount.com",
      private_key: keys.privateKeyPem,
      private_key_id: "sa1",
    };
    const tokens = new ServiceAccountTokens(key, GOOGLE_TOKEN_URL, fetchFn);
    const t0 = 1_795_884_736_000;
    const [a, b] = await Promise.all([tokens.token(t0), tokens.token(t0)]);
    expect([a, b]).toEqual(["tok-1", "tok-1"]);
    expect(await tokens.token(t0 + 54 * 60_000)).toBe("tok-1");
    expect(await tokens.token(t0 + 56 * 60_000)).toBe("tok-2");
    expect(calls).toHaveLength(2);
    const form = new URLSearchParams(calls[0]!.body);
    expect(form.get("grant_type")).toBe("urn:ietf:params:oauth:grant-type:jwt-bearer");
    const verified = await verifyRs256Jwt(
      form.get("assertion")!,
      { sa1: keys.certificatePem },
      { audiences: [GOOGLE_TOKEN_URL], issuers: [key.client_email], nowSeconds: t0 / 1000 },
    );
    expect(verified).toMatchObject({ ok: true, claims: { scope: "https://www.googleapis.com/auth/chat.bot" } });
  });

  it("fails clearly when the token endpoint refuses", async () => {
    const { fetchFn } = recorder(() => new Response('{"error":"invalid_grant"}', { status: 400 }));
    const tokens = new ServiceAccountTokens(
      { client_email: "x", private_key: keys.privateKeyPem },
      "https://t",
      fetchFn,
    );
    await expect(tokens.token(0)).rejects.toThrow("token endpoint answered 400");
  });
});

describe("Chat API replies (recorded, googlechat-spaces long-9000)", () => {
  it("PATCHes the first 4000-character chunk into the placeholder and POSTs the rest, Markdown unchanged", async () => {
    const { calls, fetchFn } = recorder(
      (_c, n) => new Response(JSON.stringify({ name: `spaces/DMalice/messages/M${n}` }), { status: 200 }),
    );
    const api = new ChatApi("http://127.0.0.1:1", async () => "tok", fetchFn);
    const placeholder = await api.create("spaces/DMalice", "_OpenClaw is typing..._");
    const text = `**bold** and \`code\` ${"x".repeat(8980)}`;
    const parts = googleChatChunks(text);
    expect(parts.every((p) => p.length <= 4000)).toBe(true);
    expect(parts).toHaveLength(3);
    expect(parts[0]?.startsWith("**bold** and `code`")).toBe(true);
    const outcome = await sendGoogleChatParts({ api, space: "spaces/DMalice", parts, fromPart: 0, placeholder });
    expect(outcome).toEqual({ partsSent: parts.length });
    expect(calls.map((c) => `${c.method} ${c.url.replace("http://127.0.0.1:1", "")}`)).toEqual([
      "POST /v1/spaces/DMalice/messages",
      "PATCH /v1/spaces/DMalice/messages/M1?updateMask=text",
      "POST /v1/spaces/DMalice/messages",
      "POST /v1/spaces/DMalice/messages",
    ]);
    expect(JSON.parse(calls[1]!.body)).toEqual({ text: parts[0] });
    expect(calls.every((c) => c.authorization === "Bearer tok")).toBe(true);
  });

  it("without a placeholder POSTs every part, and resumes after the parts already sent", async () => {
    let failNext = true;
    const { calls, fetchFn } = recorder(() => {
      if (calls.length === 2 && failNext) {
        failNext = false;
        return new Response("boom", { status: 500 });
      }
      return new Response("{}", { status: 200 });
    });
    const api = new ChatApi("http://127.0.0.1:1", async () => "tok", fetchFn);
    const parts = ["one", "two", "three"];
    const first = await sendGoogleChatParts({ api, space: "spaces/AAAAopen", parts, fromPart: 0 });
    expect(first).toEqual({ partsSent: 1, error: "Chat API POST answered 500" });
    const second = await sendGoogleChatParts({ api, space: "spaces/AAAAopen", parts, fromPart: first.partsSent });
    expect(second).toEqual({ partsSent: 3 });
    expect(calls.map((c) => JSON.parse(c.body).text)).toEqual(["one", "two", "two", "three"]);
  });

  it("reads the space of a delivery target", () => {
    expect(parseGoogleChatSpace("googlechat:spaces/AAAAopen")).toBe("spaces/AAAAopen");
    expect(parseGoogleChatSpace("spaces/DMalice")).toBe("spaces/DMalice");
    expect(parseGoogleChatSpace("googlechat:users/1")).toBeNull();
    expect(parseGoogleChatSpace("googlechat:spaces/../x")).toBeNull();
  });
});
