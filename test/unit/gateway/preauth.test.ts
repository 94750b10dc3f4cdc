import { describe, expect, it } from "vitest";
import { addressBucket, clientAddress, preauthAdmission, preauthLimits } from "../../../src/gateway/preauth";

describe("bound on unauthenticated gateway sockets", () => {
  it("takes the client address from CF-Connecting-IP; X-Forwarded-For only behind TRUSTED_PROXY_HOPS proxies", () => {
    const both = new Headers({ "cf-connecting-ip": "203.0.113.9", "x-forwarded-for": "1.1.1.1" });
    expect(clientAddress(both)).toBe("203.0.113.9");
    // No trusted proxy: a forwarded-for header is the client's own text, so it buys no budget.
    expect(clientAddress(new Headers({ "x-forwarded-for": "198.51.100.2" }))).toBe("");
    expect(clientAddress(new Headers())).toBe("");
    // One trusted proxy: the entry it appended (the rightmost); entries left of it are forgeable.
    const forged = new Headers({ "x-forwarded-for": "10.9.9.9, 198.51.100.2", "cf-connecting-ip": "192.0.2.50" });
    expect(clientAddress(forged, 1)).toBe("198.51.100.2");
    expect(clientAddress(forged, 2)).toBe("10.9.9.9");
    // Fewer entries than trusted proxies: a proxy was skipped and the leftmost entry may be the
    // client's own, so the header is not taken (CF-Connecting-IP, else the shared bucket).
    expect(clientAddress(new Headers({ "x-forwarded-for": "198.51.100.2" }), 3)).toBe("");
    expect(clientAddress(forged, 3)).toBe("192.0.2.50");
    // A trusted proxy that sent no header: CF-Connecting-IP, else the shared bucket.
    expect(clientAddress(new Headers({ "cf-connecting-ip": "192.0.2.50" }), 1)).toBe("192.0.2.50");
  });

  it("counts an IPv6 address per /64 (any spelling), an IPv4-mapped one as its IPv4 address", () => {
    const bucket = "2001:db8:aa:bb::/64";
    for (const address of [
      "2001:db8:aa:bb::1",
      "2001:DB8:AA:BB:ffff:1:2:3",
      "2001:0db8:00aa:00bb:0:0:0:9",
      "[2001:db8:aa:bb::7]",
    ])
      expect(addressBucket(address), address).toBe(bucket);
    expect(addressBucket("2001:db8:aa:bc::1")).toBe("2001:db8:aa:bc::/64");
    expect(addressBucket("::1")).toBe("0:0:0:0::/64");
    expect(addressBucket("::ffff:192.0.2.1")).toBe("192.0.2.1");
    expect(addressBucket("::ffff:c000:201")).toBe("192.0.2.1");
    expect(addressBucket("198.51.100.7")).toBe("198.51.100.7");
    expect(clientAddress(new Headers({ "cf-connecting-ip": "2001:db8:aa:bb:1234::5" }))).toBe(bucket);
    // Not an address: kept as text (cut), never an error.
    expect(addressBucket("not:an:address")).toBe("not:an:address");
    expect(addressBucket("x".repeat(500))).toHaveLength(64);
  });

  it("refuses past the address's bound; at the tenant's bound admits by evicting; limits come from deployment vars", () => {
    const limits = preauthLimits({
      GATEWAY_PREAUTH_SOCKETS: "10",
      GATEWAY_PREAUTH_SOCKETS_PER_ADDRESS: "3",
      TRUSTED_PROXY_HOPS: "1",
    } as never);
    expect(limits).toEqual({ perTenant: 10, perAddress: 3, trustedProxyHops: 1 });
    expect(preauthLimits({})).toEqual({ perTenant: 256, perAddress: 64, trustedProxyHops: 0 });
    expect(preauthAdmission({ tenant: 9, address: 2 }, limits)).toBe("admit");
    expect(preauthAdmission({ tenant: 9, address: 3 }, limits)).toEqual({
      refusal: "too many gateway sockets waiting to authenticate from this address (3); retry later",
    });
    expect(preauthAdmission({ tenant: 10, address: 0 }, limits)).toBe("evict");
    expect(preauthAdmission({ tenant: 10, address: 3 }, limits)).toHaveProperty("refusal");
  });
});
