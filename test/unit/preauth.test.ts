import { describe, expect, it } from "vitest";
import { clientAddress, preauthLimits, preauthRefusal } from "../../src/gateway/preauth";

describe("bound on unauthenticated gateway sockets", () => {
  it("takes the client address from CF-Connecting-IP, else the first X-Forwarded-For hop", () => {
    expect(clientAddress(new Headers({ "cf-connecting-ip": "203.0.113.9", "x-forwarded-for": "1.1.1.1" }))).toBe(
      "203.0.113.9",
    );
    expect(clientAddress(new Headers({ "x-forwarded-for": " 198.51.100.2 , 10.0.0.1" }))).toBe("198.51.100.2");
    expect(clientAddress(new Headers())).toBe("");
  });

  it("refuses at the tenant's bound first, then at the address's; limits come from deployment vars", () => {
    const limits = preauthLimits({ GATEWAY_PREAUTH_SOCKETS: "10", GATEWAY_PREAUTH_SOCKETS_PER_ADDRESS: "3" } as never);
    expect(limits).toEqual({ perTenant: 10, perAddress: 3 });
    expect(preauthLimits({})).toEqual({ perTenant: 256, perAddress: 64 });
    expect(preauthRefusal({ tenant: 9, address: 2 }, limits)).toBeUndefined();
    expect(preauthRefusal({ tenant: 9, address: 3 }, limits)).toContain("from this address (3)");
    expect(preauthRefusal({ tenant: 10, address: 0 }, limits)).toContain("for this tenant (10)");
  });
});
