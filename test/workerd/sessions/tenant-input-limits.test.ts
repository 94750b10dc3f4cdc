import { describe, expect, it } from "vitest";
import { freshTenant } from "../support/helpers";
import { GatewayClient } from "../support/ws-helpers";

/**
 * What a tenant admin (anyone who signs up) may not put into names: bidirectional-control
 * characters in session keys, path-like or prototype names as agent ids (issue 36, item 5).
 */

const RLO_KEY = "agent:main:invoice\u202Etxt.exe";

describe("session keys with bidirectional-control characters", () => {
  it("are refused at the HTTP API, /tools/invoke, the OpenAI routes and the gateway", async () => {
    const t = await freshTenant("bidi");
    for (const mark of ["\u202A", "\u202E", "\u2066", "\u2069", "\u200E", "\u200F", "\u061C"]) {
      const res = await t.patch(`agent:main:x${mark}y`, { label: "l" });
      expect(res.status, JSON.stringify(mark)).toBe(400);
      expect(res.data.error.message).toContain("bidirectional control characters");
    }
    const append = await t.append(RLO_KEY, { role: "user", content: "hi" });
    expect(append.status).toBe(400);
    const tool = await t.invoke("sessions_history", { sessionKey: RLO_KEY });
    expect(JSON.stringify(tool.data)).toContain("bidirectional control characters");
    const openai = await t.call("/v1/chat/completions", {
      method: "POST",
      headers: { "x-openclaw-session-key": RLO_KEY },
      json: { model: "openclaw", messages: [{ role: "user", content: "hi" }] },
    });
    expect(openai.status).toBe(400);
    const ws = await GatewayClient.connect({ path: t.prefix, token: t.token });
    const patched = await ws.request("sessions.patch", { key: RLO_KEY, label: "l" });
    expect(patched.ok).toBe(false);
    expect(patched.error.code).toBe("INVALID_REQUEST");
    expect(patched.error.message).toContain("bidirectional control characters");
    expect((await t.list()).data.sessions).toEqual([]);
    ws.ws.close();
  });
});

describe("agent ids that are paths or prototype names", () => {
  it("are refused in the config, in agents.* and wherever a request names an agent", async () => {
    const t = await freshTenant("agentid");
    for (const id of ["__proto__", "../x", "a/b", "a\\b", ".hidden", "constructor", "prototype"]) {
      const res = await t.config({ agents: { list: [{ id }] } });
      expect(res.status, id).toBe(400);
      expect(res.data.error.message).toContain("Invalid agent id");
    }
    expect((await t.config({ agents: { list: [{ id: "main" }, { id: "ops" }] } })).status).toBe(200);
    const ws = await GatewayClient.connect({ path: t.prefix, token: t.token });
    for (const agentId of ["../x", "__proto__", "constructor"]) {
      const created = await ws.request("sessions.create", { key: "k1", agentId });
      expect(created.ok, agentId).toBe(false);
      expect(created.error.code).toBe("INVALID_REQUEST");
      expect(created.error.message).toMatch(/(invalid|unknown) agent id/);
    }
    const made = await ws.request("agents.create", { name: "constructor" });
    expect(made.ok).toBe(false);
    expect(made.error.code).toBe("INVALID_REQUEST");
    const sent = await ws.request("agent", { message: "hi", idempotencyKey: "i1", agentId: "prototype" });
    expect(sent.ok).toBe(false);
    expect(sent.error.message).toContain('invalid agent id "prototype"');
    const job = await ws.request("cron.add", {
      name: "j",
      agentId: "../ops",
      schedule: { kind: "every", everyMs: 60_000 },
      sessionTarget: "main",
      payload: { kind: "systemEvent", text: "x" },
      wakeMode: "now",
    });
    expect(job.ok).toBe(false);
    expect(job.error.message).toContain("invalid agent id");
    const keyed = await t.patch("agent:constructor:main", { label: "l" });
    expect(keyed.status).toBe(400);
    expect(keyed.data.error.message).toContain("invalid agent id");
    expect((await t.list()).data.sessions).toEqual([]);
    ws.ws.close();
  });
});
