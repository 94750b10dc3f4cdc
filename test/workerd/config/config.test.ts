import { describe, expect, it } from "vitest";
import { call, createTenant, issueToken } from "../support/helpers";

const valid = {
  session: {
    mainKey: "main",
    sendPolicy: { default: "allow", rules: [{ action: "deny", match: { channel: "discord", chatType: "group" } }] },
  },
  tools: { sessions: { visibility: "all" }, agentToAgent: { enabled: true, allow: ["main", "ops-*"] } },
  agents: {
    defaults: { subagents: { maxSpawnDepth: 2 } },
    list: [
      { id: "main", default: true },
      { id: "ops", subagents: { allowAgents: ["*"] } },
    ],
  },
  gateway: { tools: { allow: ["sessions_send"] } },
};

describe("tenant config", () => {
  it("stores a valid OpenClaw-shaped config and returns it", async () => {
    const put = await call("/v1/config", { method: "PUT", json: valid });
    expect(put.status).toBe(200);
    const got = await call("/v1/config");
    expect(got.data).toEqual({ ok: true, config: valid });
  });

  it("rejects bad config with 400 naming the path and keeps the stored config whole", async () => {
    await call("/v1/config", { method: "PUT", json: valid });
    const badValue = await call("/v1/config", {
      method: "PUT",
      json: { ...valid, session: { agentToAgent: { maxPingPongTurns: 9 } } },
    });
    expect(badValue.status).toBe(400);
    expect(badValue.data.error.message).toContain("session.agentToAgent.maxPingPongTurns");
    const unknownKey = await call("/v1/config", { method: "PUT", json: { tools: { sessions: { visiblity: "all" } } } });
    expect(unknownKey.status).toBe(400);
    expect(unknownKey.data.error.message).toContain("tools.sessions");
    expect(unknownKey.data.error.message).toContain("visiblity");
    expect((await call("/v1/config")).data.config).toEqual(valid);
  });

  it("lets runners read only MODEL_KEY_* secrets, never the deployment's own", async () => {
    const bad = await call("/v1/config", {
      method: "PUT",
      json: {
        agents: {
          defaults: {
            runner: { type: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "m", apiKeySecret: "ADMIN_TOKEN" },
          },
        },
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.data.error.message).toContain("MODEL_KEY_");
    const good = await call("/v1/config", {
      method: "PUT",
      json: {
        agents: {
          defaults: {
            runner: { type: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "m", apiKeySecret: "MODEL_KEY_LOCAL" },
          },
        },
      },
    });
    expect(good.status).toBe(200);
    await call("/v1/config", { method: "PUT", json: {} });
  });

  it("is read with operator.read (as OpenClaw's config.get) and written with operator.admin", async () => {
    await createTenant("cfg");
    const writer = await issueToken("cfg", ["operator.read", "operator.write"]);
    expect((await call("/t/cfg/v1/config", { token: writer.token })).status).toBe(200);
    const res = await call("/t/cfg/v1/config", { token: writer.token, method: "PUT", json: {} });
    expect(res.status).toBe(403);
    expect(res.data.error.message).toBe("missing scope: operator.admin");
  });

  it("applies session.mainKey to the main alias", async () => {
    await createTenant("mainkey");
    const admin = await issueToken("mainkey");
    await call("/t/mainkey/v1/config", { method: "PUT", token: admin.token, json: { session: { mainKey: "home" } } });
    const res = await call("/t/mainkey/v1/sessions/main/messages", {
      method: "POST",
      token: admin.token,
      json: { role: "user", content: "hi" },
    });
    expect(res.data.sessionKey).toBe("agent:main:home");
  });
});
