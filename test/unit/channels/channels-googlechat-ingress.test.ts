import { beforeAll, describe, expect, it } from "vitest";
import { CertificateCache, maxAgeMs } from "../../../src/features/channels/googlechat/certificates";
import {
  checkGoogleChatBody,
  checkGoogleChatToken,
  type GoogleChatAudience,
} from "../../../src/features/channels/googlechat/ingress";
import { makeKeyAndCert, referenceToken } from "../support/rs256-fixture";

const NOW_S = 1_795_884_736;
const PROJECT = { audienceType: "project-number" as const, audience: "123456789012" };
const CHAT_CLAIMS = { iss: "chat@system.gserviceaccount.com", aud: PROJECT.audience, iat: NOW_S, exp: NOW_S + 3600 };

let keys: { privateKeyPem: string; certificatePem: string };
beforeAll(() => {
  keys = makeKeyAndCert();
});

function check(authorization: string | null, audience: GoogleChatAudience = PROJECT) {
  return checkGoogleChatToken({ authorization, audience, certsByKid: { k1: keys.certificatePem }, nowSeconds: NOW_S });
}

describe("Google Chat webhook answers (recorded, googlechat-auth)", () => {
  it("lets a project-number token through and answers every bad one 401 unauthorized", async () => {
    expect(await check(`Bearer ${referenceToken(CHAT_CLAIMS, keys.privateKeyPem)}`)).toBeNull();
    const other = makeKeyAndCert();
    const bad: [string | null, string][] = [
      [null, "missing token"],
      ["Bearer not-a-jwt", "malformed"],
      [`Bearer ${referenceToken(CHAT_CLAIMS, other.privateKeyPem)}`, "invalid signature"],
      [`Bearer ${referenceToken({ ...CHAT_CLAIMS, aud: "1" }, keys.privateKeyPem)}`, "wrong audience"],
      [`Bearer ${referenceToken({ ...CHAT_CLAIMS, iss: "x@y" }, keys.privateKeyPem)}`, "wrong issuer"],
      [`Bearer ${referenceToken({ ...CHAT_CLAIMS, exp: NOW_S - 120 }, keys.privateKeyPem)}`, "expired"],
    ];
    for (const [authorization, reason] of bad) {
      expect(await check(authorization), reason).toEqual({ ok: false, status: 401, text: "unauthorized", reason });
    }
  });

  it("app-url: a Google ID token for the URL naming Chat's verified account, nothing else", async () => {
    const appUrl = { audienceType: "app-url" as const, audience: "https://edge.example/googlechat" };
    const id = {
      iss: "https://accounts.google.com",
      aud: appUrl.audience,
      email: "chat@system.gserviceaccount.com",
      email_verified: true,
      exp: NOW_S + 3600,
    };
    expect(await check(`Bearer ${referenceToken(id, keys.privateKeyPem)}`, appUrl)).toBeNull();
    const unverified = referenceToken({ ...id, email_verified: false }, keys.privateKeyPem);
    expect(await check(`Bearer ${unverified}`, appUrl)).toMatchObject({ status: 401, reason: "wrong email" });
  });

  it("answers 415 to a non-JSON content type and 400 invalid payload to bad JSON or {}", () => {
    expect(checkGoogleChatBody({ contentType: "text/plain", body: "{}" })).toEqual({
      ok: false,
      status: 415,
      text: "Unsupported Media Type",
    });
    for (const body of ["{nope", "{}"]) {
      expect(checkGoogleChatBody({ contentType: "application/json", body })).toEqual({
        ok: false,
        status: 400,
        text: "invalid payload",
      });
    }
    const added = checkGoogleChatBody({
      contentType: "application/json; charset=utf-8",
      body: '{"type":"ADDED_TO_SPACE"}',
    });
    expect(added).toMatchObject({ ok: true, updateId: null });
  });
});

describe("CertificateCache", () => {
  it("fetches once per Cache-Control max-age, shared by concurrent callers", async () => {
    let fetches = 0;
    const cache = new CertificateCache(async () => {
      fetches++;
      return new Response(JSON.stringify({ k1: "PEM" }), { headers: { "cache-control": "public, max-age=300" } });
    });
    const t0 = 1_000_000;
    const [a, b] = await Promise.all([cache.get("https://certs", t0), cache.get("https://certs", t0)]);
    expect(a).toEqual({ k1: "PEM" });
    expect(b).toBe(a);
    await cache.get("https://certs", t0 + 299_000);
    expect(fetches).toBe(1);
    await cache.get("https://certs", t0 + 300_000);
    expect(fetches).toBe(2);
  });

  it("keeps a map without max-age 10 minutes and refuses a failed fetch", async () => {
    expect(maxAgeMs(null)).toBeNull();
    expect(maxAgeMs("max-age=21600, must-revalidate")).toBe(21_600_000);
    const failing = new CertificateCache(async () => new Response("no", { status: 503 }));
    await expect(failing.get("https://certs", 0)).rejects.toThrow(/503/);
  });
});
