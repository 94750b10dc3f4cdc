import { describe, expect, it, vi } from "vitest";
import { ACCESS_TTL_MS, cachedAccess, rememberAccess } from "../../../src/auth/access-cache";
import {
  ACCESS_GRANT_TTL_MS,
  accessGrant,
  openAccessGrant,
  sealAccessGrant,
  signRevocationEpoch,
  verifyRevocationEpoch,
} from "../../../src/auth/access-grant";
import type { Access } from "../../../src/auth/principal";
import { mintRunToken, verifyRunToken } from "../../../src/auth/run-token";
import { sealJson } from "../../../src/auth/sealed-json";

const SECRET = "unit-auth-grant-secret";
const access = {
  principal: { kind: "operator", scopes: ["operator.read"], tokenId: "0123456789abcdef" },
  config: {},
} as Access;
const issuedAt = 1_000_000;
const expected = { tenantId: "acme", tokenHash: "ab".repeat(32), epoch: null, now: issuedAt + 1 };
const answer = { access, expiresAt: issuedAt + ACCESS_GRANT_TTL_MS };

describe("sealed access grants", () => {
  it("carry the access for their tenant and token until they expire", async () => {
    const signed = await sealAccessGrant(SECRET, accessGrant("acme", expected.tokenHash, access, issuedAt));
    expect(await openAccessGrant(SECRET, signed, expected)).toEqual(answer);
    const lastMs = issuedAt + ACCESS_GRANT_TTL_MS - 1;
    expect(await openAccessGrant(SECRET, signed, { ...expected, now: lastMs })).toEqual(answer);
    expect(await openAccessGrant(SECRET, signed, { ...expected, now: lastMs + 1 })).toBeNull();
  });

  it("are unreadable, and refused for another tenant or token, with another key, or altered", async () => {
    const signed = await sealAccessGrant(SECRET, accessGrant("acme", expected.tokenHash, access, issuedAt));
    expect(await openAccessGrant(SECRET, signed, { ...expected, tenantId: "other" })).toBeNull();
    expect(await openAccessGrant(SECRET, signed, { ...expected, tokenHash: "cd".repeat(32) })).toBeNull();
    expect(await openAccessGrant("another-secret", signed, expected)).toBeNull();
    // Sealed: the config's secrets cannot be read from it, and a changed byte does not open.
    expect(Buffer.from(signed.split(".")[1]!, "base64url").toString()).not.toContain("operator.read");
    const bytes = Buffer.from(signed.split(".")[1]!, "base64url");
    bytes[0]! ^= 1;
    const altered = `${signed.split(".")[0]}.${bytes.toString("base64url")}`;
    expect(await openAccessGrant(SECRET, altered, expected)).toBeNull();
    for (const garbage of ["", ".", "x.y", `${signed}=`, `${signed}.x`]) {
      expect(await openAccessGrant(SECRET, garbage, expected)).toBeNull();
    }
  });

  it("are retired by a revocation epoch at or after their issue", async () => {
    const signed = await sealAccessGrant(SECRET, accessGrant("acme", expected.tokenHash, access, issuedAt));
    expect(await openAccessGrant(SECRET, signed, { ...expected, epoch: issuedAt - 1 })).toEqual(answer);
    expect(await openAccessGrant(SECRET, signed, { ...expected, epoch: issuedAt })).toBeNull();
    const marker = await signRevocationEpoch(SECRET, { tenantId: "acme", epoch: issuedAt });
    expect(await verifyRevocationEpoch(SECRET, marker, "acme")).toBe(issuedAt);
    expect(await verifyRevocationEpoch(SECRET, marker, "other")).toBeNull();
    expect(await verifyRevocationEpoch("another-secret", marker, "acme")).toBeNull();
    expect(await verifyRevocationEpoch(SECRET, null, "acme")).toBeNull();
  });

  it("an isolate keeps a grant's answer no longer than the grant (so the revocation bound holds)", () => {
    const now = 5_000_000;
    rememberAccess("acme", "ef".repeat(32), access, now + 200, now);
    expect(cachedAccess("acme", "ef".repeat(32), now + 199)).toEqual(access);
    expect(cachedAccess("acme", "ef".repeat(32), now + 200)).toBeUndefined();
    rememberAccess("acme", "ef".repeat(32), access, Number.POSITIVE_INFINITY, now);
    expect(cachedAccess("acme", "ef".repeat(32), now + ACCESS_TTL_MS - 1)).toEqual(access);
    expect(cachedAccess("acme", "ef".repeat(32), now + ACCESS_TTL_MS)).toBeUndefined();
  });

  it("run tokens, signed the same way, still verify", async () => {
    const claims = {
      tenantId: "acme",
      agentId: "main",
      sessionKey: "agent:main:x",
      runId: "r1",
      sandboxed: false,
      spawnDepth: 0,
      sessionTools: true,
      exp: Date.now() + 60_000,
    };
    const token = await mintRunToken(SECRET, claims);
    expect(token.startsWith("ocr_")).toBe(true);
    expect(await verifyRunToken(SECRET, token)).toEqual(claims);
    expect(await verifyRunToken(SECRET, `${token}A`)).toBeNull();
    expect(await verifyRunToken(SECRET, token, claims.exp)).toBeNull();
  });

  it("each tenant and token seals under a key of its own: an IV repeated across them repeats no keystream", async () => {
    // The same IV for every seal (the rare collision of random IVs, made certain).
    const fixedIv = vi.spyOn(crypto, "getRandomValues").mockImplementation((array) => array);
    try {
      const value = { access, padding: "x".repeat(64) };
      const body = (sealed: string) => Buffer.from(sealed.split(".")[1]!, "base64url").subarray(0, -16).toString("hex");
      const acme = await sealJson(SECRET, "access-grant\nacme\ntoken-a", value);
      const other = await sealJson(SECRET, "access-grant\nother\ntoken-a", value);
      const otherToken = await sealJson(SECRET, "access-grant\nacme\ntoken-b", value);
      expect(acme.split(".")[0]).toBe(other.split(".")[0]);
      expect(body(acme)).not.toBe(body(other));
      expect(body(acme)).not.toBe(body(otherToken));
    } finally {
      fixedIv.mockRestore();
    }
  });
});
