import { describe, expect, it } from "vitest";
import type { TenantContext } from "../../../src/domain/context";
import type { SessionRow } from "../../../src/model/session-row";
import { invokeTool } from "../../../src/tools/invoke";

/** The requester's and the target's index rows, as `tenant.session` answers them. */
const ROWS: Record<string, Partial<SessionRow>> = {
  "agent:main:main": { key: "agent:main:main", sandboxed: false },
  "agent:main:other": { key: "agent:main:other", sandboxed: false },
};

describe("sessions_send over /tools/invoke (issue 37)", () => {
  it("reads the requester's row once: the operator's requester brings it along", async () => {
    const reads: string[] = [];
    const ctx = {
      tenantId: "t1",
      config: { gateway: { tools: { allow: ["sessions_send"] } }, tools: { sessions: { visibility: "all" } } },
      principal: { kind: "operator", scopes: ["operator.write"] },
      tenant: {
        session: async (key: string) => {
          reads.push(key);
          return ROWS[key] ?? null;
        },
        recordRunStart: async (_runId: string, key: string) => ({ owner: key }),
      },
      sessions: () => ({
        sendInterSession: async (_ref: unknown, request: { runId: string }) => ({
          runId: request.runId,
          status: "started",
          queued: false,
        }),
      }),
    } as unknown as TenantContext;
    const result = await invokeTool(ctx, {
      tool: "sessions_send",
      args: { sessionKey: "agent:main:other", message: "hello", timeoutSeconds: 0 },
      sessionKey: "main",
    });
    expect(result.details).toMatchObject({ status: "accepted", sessionKey: "agent:main:other" });
    expect(reads.filter((key) => key === "agent:main:main")).toHaveLength(1);
    expect(reads.filter((key) => key === "agent:main:other")).toHaveLength(1);
  });
});
