import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { TenantContext } from "../../../src/domain/context";
import { tenantApi, tenantPorts } from "../../../src/stubs";
import { sessionsSend } from "../../../src/tools/sessions-send";
import { call, createTenant, issueToken } from "../support/helpers";

/** sessions_send to a target that does not exist: OpenClaw's "No session found" texts, nothing created. */

async function tenant(id: string) {
  await createTenant(id);
  const { token } = await issueToken(id);
  const config = { gateway: { tools: { allow: ["sessions_send"] } }, tools: { sessions: { visibility: "all" } } };
  expect((await call(`/t/${id}/v1/config`, { method: "PUT", token, json: config })).status).toBe(200);
  const send = async (args: Record<string, unknown>) => {
    const res = await call(`/t/${id}/tools/invoke`, {
      method: "POST",
      token,
      json: { tool: "sessions_send", args, sessionKey: "main" },
    });
    expect(res.status, res.text).toBe(200);
    expect(JSON.parse(res.data.result.content[0].text)).toEqual(res.data.result.details);
    return res.data.result.details;
  };
  const keys = async () =>
    ((await call(`/t/${id}/v1/sessions`, { token })).data.sessions as Array<{ key: string }>).map((s) => s.key);
  return { send, keys };
}

describe("sessions_send to a target that does not exist", () => {
  it("answers No session found for a missing key and creates nothing", async () => {
    const t = await tenant("send-missing-key");
    expect(await t.send({ sessionKey: "agent:main:never-x", message: "x", timeoutSeconds: 0 })).toEqual({
      runId: expect.any(String),
      status: "error",
      error: "No session found: agent:main:never-x",
      sessionKey: "agent:main:never-x",
    });
    expect(await t.keys()).not.toContain("agent:main:never-x");
  });

  it("answers Session not found for a missing bare name or sessionId, and No session found with label", async () => {
    const t = await tenant("send-missing-other");
    expect(await t.send({ sessionKey: "never-x", message: "x", timeoutSeconds: 0 })).toEqual({
      runId: expect.any(String),
      status: "error",
      error: "Session not found: never-x (use the full sessionKey from sessions_list)",
    });
    const uuid = "0b6c2f9e-3c1a-4d8e-9f00-1a2b3c4d5e6f";
    expect((await t.send({ sessionKey: uuid, message: "x", timeoutSeconds: 0 })).error).toBe(
      `Session not found: ${uuid} (use the full sessionKey from sessions_list)`,
    );
    expect(await t.send({ label: "nolabel", message: "x", timeoutSeconds: 0 })).toEqual({
      runId: expect.any(String),
      status: "error",
      error: "No session found with label: nolabel",
    });
    expect(await t.keys()).toEqual([]);
  });

  it("still creates the agent's own main session when it is missing", async () => {
    const t = await tenant("send-missing-main");
    const details = await t.send({ sessionKey: "agent:main:main", message: "x", timeoutSeconds: 0 });
    expect(details).toMatchObject({ status: "accepted", sessionKey: "main" });
    expect(await t.keys()).toContain("agent:main:main");
  });

  it("the domain function answers the same to an in-process caller", async () => {
    const id = "send-missing-domain";
    const t = await tenant(id);
    const ctx: TenantContext = {
      ...tenantPorts(env, id),
      tenantId: id,
      config: await tenantApi(env, id).config(),
      principal: { kind: "operator", scopes: ["operator.write"] },
    };
    const requester = { key: "agent:main:main", agentId: "main", sandboxed: false, spawnDepth: 0, isSubagent: false };
    const result = await sessionsSend(ctx, requester, { sessionKey: "agent:main:gone", message: "x" });
    expect(result.details).toMatchObject({ status: "error", error: "No session found: agent:main:gone" });
    expect(await t.keys()).toEqual([]);
  });
});
