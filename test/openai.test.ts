import { describe, expect, it } from "vitest";
import { call, freshTenant } from "./helpers";

describe("the routes in the Workers runtime", () => {
  it("completes, streams (role chunk first, usage last) and records the run under the completion id", async () => {
    const t = await freshTenant("oai");
    const res = await t.call("/v1/chat/completions", {
      method: "POST",
      json: { model: "openclaw", user: "Alice", messages: [{ role: "user", content: "hello door" }] },
    });
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({
      object: "chat.completion",
      model: "openclaw",
      choices: [{ index: 0, message: { role: "assistant", content: "ECHO: hello door" }, finish_reason: "stop" }],
    });
    expect(res.data.id).toMatch(/^chatcmpl_[0-9a-f-]{36}$/);
    const run = await t.call(`/v1/runs/${res.data.id}`);
    expect(run.data.run).toMatchObject({ sessionKey: "agent:main:openai-user:alice", status: "ok", origin: "agent" });

    const stream = await t.call("/v1/chat/completions", {
      method: "POST",
      json: { stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "s" }] },
    });
    expect(stream.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const frames = stream.text
      .split("\n\n")
      .filter(Boolean)
      .map((f) => f.replace(/^data: /, ""));
    expect(frames.at(-1)).toBe("[DONE]");
    const chunks = frames.slice(0, -1).map((f) => JSON.parse(f));
    expect(chunks[0].choices[0].delta).toEqual({ role: "assistant" });
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? "").join("")).toBe("ECHO: s");
    expect(chunks.at(-2).choices[0]).toEqual({ index: 0, delta: {}, finish_reason: "stop" });
    expect(chunks.at(-1).choices).toEqual([]);
    expect(chunks.at(-1).usage.total_tokens).toBeGreaterThan(0);
  });

  it("answers errors in the OpenAI shape: auth, scope, method, switch", async () => {
    const t = await freshTenant("oai");
    const noAuth = await call(`${t.prefix}/v1/chat/completions`, { method: "POST", token: null, body: "{not json" });
    expect(noAuth.status).toBe(401);
    expect(noAuth.data).toEqual({ error: { message: "Unauthorized", type: "unauthorized" } });
    const get = await call(`${t.prefix}/v1/chat/completions`, { token: null });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    const issued = await call(`/v1/admin/tenants/${t.id}/tokens`, {
      method: "POST",
      token: "test-admin-token",
      json: { scopes: ["operator.read"] },
    });
    const reader = issued.data.token as string;
    expect((await call(`${t.prefix}/v1/models`, { token: reader })).status).toBe(200);
    const refused = await call(`${t.prefix}/v1/chat/completions`, {
      method: "POST",
      token: reader,
      json: { messages: [{ role: "user", content: "x" }] },
    });
    expect(refused.status).toBe(403);
    expect(refused.data).toEqual({ error: { message: "missing scope: operator.write", type: "forbidden" } });
    await t.config({ gateway: { http: { endpoints: { chatCompletions: { enabled: false } } } } });
    const off = await t.call("/v1/chat/completions", {
      method: "POST",
      json: { messages: [{ role: "user", content: "x" }] },
    });
    expect(off.status).toBe(404);
    expect(off.data.error.message).toBe("Not Found");
    expect((await t.call("/v1/models")).status).toBe(200);
  });

  it("continues a response's session with previous_response_id, and streams response events", async () => {
    const t = await freshTenant("oai");
    const first = await t.call("/v1/responses", { method: "POST", json: { model: "openclaw", input: "first" } });
    expect(first.status).toBe(200);
    expect(first.data).toMatchObject({ object: "response", status: "completed" });
    expect(first.data.output[0].content[0].text).toBe("ECHO: first");
    const second = await t.call("/v1/responses", {
      method: "POST",
      json: { model: "openclaw", input: "second", previous_response_id: first.data.id },
    });
    const a = await t.call(`/v1/runs/${first.data.id}`);
    const b = await t.call(`/v1/runs/${second.data.id}`);
    expect(b.data.run.sessionKey).toBe(a.data.run.sessionKey);
    expect(a.data.run.sessionKey).toMatch(/^agent:main:openresponses:/);

    const stream = await t.call("/v1/responses", {
      method: "POST",
      json: { model: "openclaw", input: "s", stream: true },
    });
    const events = [...stream.text.matchAll(/^event: (.+)$/gm)].map((m) => m[1]);
    expect(events.slice(0, 4)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
    ]);
    expect(events.slice(-4)).toEqual([
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(stream.text.endsWith("data: [DONE]\n\n")).toBe(true);
  });
});
