import { describe, expect, it } from "vitest";
import { verifyBotToken } from "../src/channels/msteams/bot-token";
import { toBase64Url } from "../src/util/encoding";

/**
 * The Bot Framework token check in workerd's own WebCrypto (the Node tier covers the rules
 * against the fake Bot Connector; this proves the JWK import and RS256 verify the Worker runs).
 */

const APP_ID = "00000000-0000-4000-8000-00000000a11d";
const encode = (value: object) => toBase64Url(new TextEncoder().encode(JSON.stringify(value)));

async function keyPair() {
  const pair = (await crypto.subtle.generateKey(
    { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
    true,
    ["sign", "verify"],
  )) as CryptoKeyPair;
  const jwk = (await crypto.subtle.exportKey("jwk", pair.publicKey)) as JsonWebKey;
  return { privateKey: pair.privateKey, jwk: { ...jwk, kid: "k1" } };
}

async function sign(privateKey: CryptoKey, claims: object): Promise<string> {
  const input = `${encode({ alg: "RS256", kid: "k1", typ: "JWT" })}.${encode(claims)}`;
  const signature = await crypto.subtle.sign("RSASSA-PKCS1-v1_5", privateKey, new TextEncoder().encode(input));
  return `${input}.${toBase64Url(new Uint8Array(signature))}`;
}

describe("Bot Framework token in workerd", () => {
  it("verifies the connector's RS256 signature and refuses a token whose claims were changed after signing", async () => {
    const connector = await keyPair();
    const nowMs = Date.now();
    const claims = { iss: "https://api.botframework.com", aud: APP_ID, exp: Math.floor(nowMs / 1000) + 600 };
    const keyFor = async (kid: string) => (kid === "k1" ? connector.jwk : null);
    const good = await verifyBotToken({
      token: await sign(connector.privateKey, claims),
      appId: APP_ID,
      nowMs,
      keyFor,
    });
    expect(good).toMatchObject({ ok: true, claims: { aud: APP_ID } });
    const [head, , signature] = (await sign(connector.privateKey, { ...claims, aud: "other-app" })).split(".");
    const forged = await verifyBotToken({
      token: `${head}.${encode(claims)}.${signature}`,
      appId: APP_ID,
      nowMs,
      keyFor,
    });
    expect(forged).toEqual({ ok: false, reason: "bad signature" });
  });
});
