import { describe, expect, it } from "vitest";
import type { TenantPort, TenantRole } from "../../../src/domain/context";
import { portOfRoles } from "../../../src/domain/tenant-roles";

/** A port whose every method answers its own name, so a call through a view shows where it went. */
function namingPort(): TenantPort<TenantRole> {
  return new Proxy({}, { get: (_target, name) => () => `called ${String(name)}` }) as TenantPort<TenantRole>;
}

describe("portOfRoles", () => {
  const secretsOnly = ["secrets"] as const;
  const configOnly = ["config"] as const;

  it("offers the declared roles' methods only, each calling the port's", async () => {
    const view = portOfRoles(namingPort(), secretsOnly) as unknown as Record<string, unknown>;
    expect(Object.keys(view)).toContain("resolveSecret");
    expect(Object.keys(view)).not.toContain("config");
    expect(await (view.resolveSecret as () => Promise<string>)()).toBe("called resolveSecret");
  });

  it("builds one view per port and roles, not one per call", () => {
    const port = namingPort();
    expect(portOfRoles(port, secretsOnly)).toBe(portOfRoles(port, secretsOnly));
    expect(portOfRoles(port, configOnly)).not.toBe(portOfRoles(port, secretsOnly));
    expect(portOfRoles(namingPort(), secretsOnly)).not.toBe(portOfRoles(port, secretsOnly));
  });
});
