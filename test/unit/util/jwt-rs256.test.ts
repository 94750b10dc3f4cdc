import { createVerify } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import {
  decodeJwt,
  importCertificateKey,
  importRsaJwk,
  signRs256Jwt,
  verifyRs256Jwt,
  verifyRs256JwtWith,
} from "../../../src/util/jwt-rs256";
import { b64url, makeKeyAndCert, referenceToken } from "../support/rs256-fixture";

const NOW_S = 1_795_884_736;
const ISSUER = "chat@system.gserviceaccount.com";
const AUDIENCE = "123456789012";

let google: { privateKeyPem: string; certificatePem: string };
let other: { privateKeyPem: string; certificatePem: string };
const claims = { iss: ISSUER, aud: AUDIENCE, iat: NOW_S - 10, exp: NOW_S + 3590 };
const expect_ = { audiences: [AUDIENCE], issuers: [ISSUER], nowSeconds: NOW_S, skewSeconds: 30 };

beforeAll(() => {
  google = makeKeyAndCert();
  other = makeKeyAndCert();
});

describe("verifyRs256Jwt", () => {
  it("accepts a token signed by the certificate's key and returns its claims", async () => {
    const result = await verifyRs256Jwt(
      referenceToken(claims, google.privateKeyPem),
      { k1: google.certificatePem },
      expect_,
    );
    expect(result).toEqual({ ok: true, claims, kid: "k1" });
  });

  it("verifies with a key set published as JWKS (the Bot Framework's) through the same rules", async () => {
    const rsa = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" };
    const params = { ...rsa, modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) };
    const pair = (await crypto.subtle.generateKey(params, true, ["sign", "verify"])) as CryptoKeyPair;
    const jwk = (await crypto.subtle.exportKey("jwk", pair.publicKey)) as JsonWebKey;
    const signedPart = `${b64url({ alg: "RS256", kid: "k1" })}.${b64url(claims)}`;
    const signature = await crypto.subtle.sign(rsa, pair.privateKey, new TextEncoder().encode(signedPart));
    const token = `${signedPart}.${Buffer.from(signature).toString("base64url")}`;
    const keyFor = async (kid: string | undefined) => (kid === "k1" ? importRsaJwk(jwk) : null);
    expect(await verifyRs256JwtWith(token, keyFor, expect_)).toEqual({ ok: true, claims, kid: "k1" });
    const forged = referenceToken(claims, other.privateKeyPem);
    expect(await verifyRs256JwtWith(forged, keyFor, expect_)).toEqual({ ok: false, reason: "invalid signature" });
    expect(await importRsaJwk({ kty: "EC", crv: "P-256", x: "AA", y: "AA" })).toBeNull();
    const unreachable = async () => {
      throw new Error("keys unreachable");
    };
    await expect(verifyRs256JwtWith(token, unreachable, expect_)).rejects.toThrow("keys unreachable");
  });

  it("extracts a public key WebCrypto can import from an openssl certificate", async () => {
    expect(await importCertificateKey(google.certificatePem)).not.toBeNull();
    expect(await importCertificateKey("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----")).toBeNull();
  });

  it("refuses each wrong token with its own reason", async () => {
    const certs = { k1: google.certificatePem };
    const cases: [string, string][] = [
      ["not-a-jwt", "malformed"],
      [referenceToken(claims, other.privateKeyPem), "invalid signature"],
      [referenceToken(claims, google.privateKeyPem, "k2"), "unknown key"],
      [referenceToken({ ...claims, aud: "999" }, google.privateKeyPem), "wrong audience"],
      [referenceToken({ ...claims, iss: "someone@else" }, google.privateKeyPem), "wrong issuer"],
      [referenceToken({ ...claims, exp: NOW_S - 31 }, google.privateKeyPem), "expired"],
      [referenceToken({ ...claims, nbf: NOW_S + 31 }, google.privateKeyPem), "not yet valid"],
    ];
    for (const [token, reason] of cases) {
      expect(await verifyRs256Jwt(token, certs, expect_), reason).toEqual({ ok: false, reason });
    }
    const none = `${b64url({ alg: "none", kid: "k1" })}.${b64url(claims)}.AAAA`;
    expect(await verifyRs256Jwt(none, certs, expect_)).toEqual({ ok: false, reason: "unsupported algorithm" });
  });

  it("tolerates the skew on expiry, no more", async () => {
    const certs = { k1: google.certificatePem };
    const token = referenceToken({ ...claims, exp: NOW_S - 29 }, google.privateKeyPem);
    expect((await verifyRs256Jwt(token, certs, expect_)).ok).toBe(true);
    expect((await verifyRs256Jwt(token, certs, { ...expect_, skewSeconds: 0 })).ok).toBe(false);
  });
});

describe("signRs256Jwt", () => {
  it("signs a token node:crypto verifies with the certificate", async () => {
    const token = await signRs256Jwt({ iss: "sa@example.iam", scope: "chat.bot" }, google.privateKeyPem, "sa-key");
    const decoded = decodeJwt(token);
    expect(decoded?.header).toEqual({ alg: "RS256", typ: "JWT", kid: "sa-key" });
    expect(decoded?.claims).toEqual({ iss: "sa@example.iam", scope: "chat.bot" });
    const [h, c, s] = token.split(".") as [string, string, string];
    const ok = createVerify("RSA-SHA256")
      .update(`${h}.${c}`)
      .verify(
        google.certificatePem,
        Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/")), (ch) => ch.charCodeAt(0)),
      );
    expect(ok).toBe(true);
  });

  it("refuses a key that is not PKCS#8", async () => {
    await expect(
      signRs256Jwt({}, "-----BEGIN RSA PRIVATE KEY-----\nAA\n-----END RSA PRIVATE KEY-----"),
    ).rejects.toThrow(/PKCS#8/);
  });
});
