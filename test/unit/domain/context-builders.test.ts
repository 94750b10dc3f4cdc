import { describe, expect, it } from "vitest";
import type { Principal } from "../../../src/auth/principal";
import { runClaims } from "../../../src/auth/run-token";
import type { TenantPorts } from "../../../src/domain/context";
import type { RunRecord } from "../../../src/model/run-types";
import { tenantContext } from "../../../src/stubs";

// The one builder of a TenantContext (every transport's) and the one of a run's claims (the
// run token's and the run's own tool calls').

const objects = { getByName: (name: string) => ({ name }) };
const env = {
  SESSIONS: objects,
  TENANTS: objects,
  SCHEDULER: objects,
  LEDGER: objects,
  CHANNEL_INBOX: objects,
  ATTACHMENTS: {} as R2Bucket,
};
const principal: Principal = { kind: "operator", scopes: ["operator.write"] };
const caller = { tenantId: "t1", config: {}, principal };

describe("tenantContext", () => {
  it("takes a request's origin as the service's and as an origin the config may name", () => {
    const ctx = tenantContext(env, { ...caller, requestUrl: "https://edge.example/t/t1/sessions?x=1" });
    expect(ctx.origin).toBe("https://edge.example");
    expect(ctx.outbound.ownOrigins).toEqual(["https://edge.example"]);
    expect(ctx.tenant).toEqual({ name: "t1" });
    expect(ctx.sessions("agent:main:main")).toEqual({ name: "t1/agent:main:main" });
  });

  it("answers PUBLIC_ORIGIN as the origin of a request that reached another host", () => {
    const ctx = tenantContext(
      { ...env, PUBLIC_ORIGIN: "https://public.example" },
      { ...caller, requestUrl: "http://127.0.0.1:8787/t/t1" },
    );
    expect(ctx.origin).toBe("https://public.example");
    expect(ctx.outbound.ownOrigins).toEqual(["https://public.example", "http://127.0.0.1:8787"]);
  });

  it("keeps an origin given without a request as it is, and leaves it out when there is none", () => {
    const given = tenantContext(
      { ...env, PUBLIC_ORIGIN: "https://public.example" },
      { ...caller, origin: "https://x.example" },
    );
    expect(given.origin).toBe("https://x.example");
    expect(given.outbound.ownOrigins).toEqual(["https://public.example"]);
    expect(tenantContext(env, caller)).not.toHaveProperty("origin");
  });

  it("builds over the ports it is given (the tenant object's in-process ones)", () => {
    const ports = { tenant: { own: true } } as unknown as TenantPorts;
    const ctx = tenantContext(env, { ...caller, requestUrl: "https://edge.example" }, ports);
    expect(ctx.tenant).toEqual({ own: true });
    expect(ctx.principal).toBe(principal);
  });
});

describe("runClaims", () => {
  const run = {
    runId: "r1",
    sessionKey: "agent:main:subagent:1",
    input: { tenantId: "t1", agentId: "main", sandboxed: false },
  } as unknown as RunRecord;

  it("sandboxes the run when it started sandboxed or its session is recorded so", () => {
    expect(runClaims(run, undefined, 1).sandboxed).toBe(false);
    expect(runClaims(run, { sandboxed: true }, 1).sandboxed).toBe(true);
    const sandboxedRun = { ...run, input: { ...run.input, sandboxed: true } } as RunRecord;
    expect(runClaims(sandboxedRun, null, 1).sandboxed).toBe(true);
  });

  it("carries the session's spawn depth and its session-tool right, and the expiry given", () => {
    expect(runClaims(run, { spawnDepth: 1 }, 42)).toEqual({
      tenantId: "t1",
      agentId: "main",
      sessionKey: "agent:main:subagent:1",
      runId: "r1",
      sandboxed: false,
      spawnDepth: 1,
      sessionTools: false,
      exp: 42,
    });
    expect(runClaims(run, { spawnDepth: 1, subagentRole: "orchestrator" }, 42).sessionTools).toBe(true);
    expect(runClaims(run, null, 42)).toMatchObject({ spawnDepth: 0, sessionTools: true });
  });
});
