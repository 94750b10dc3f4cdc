import { describe, expect, inject, it } from "vitest";
import { call, freshTenant } from "../support/helpers";

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

describe("client tools with a tool-calling model (SPEC §4, §5.6)", () => {
  const model = `http://127.0.0.1:${inject("toolModelPort")}/v1`;
  const weather = {
    type: "function",
    function: {
      name: "get_weather",
      description: "Weather of a city",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
  };
  async function modelTenant() {
    const t = await freshTenant("oai-tools");
    const runner = { type: "openai", baseUrl: model, model: "mock" };
    expect((await t.config({ agents: { list: [{ id: "main", default: true, runner }] } })).status).toBe(200);
    return t;
  }
  const sseFrames = (text: string) =>
    text
      .split("\n\n")
      .filter((frame) => frame.startsWith("data: ") && frame !== "data: [DONE]")
      .map((frame) => JSON.parse(frame.slice(6)));

  it("stops the run at the client's call, answers tool_calls, and takes the follow-up as a new run", async () => {
    const t = await modelTenant();
    const user = { role: "user", content: 'SAY(checking) CALL get_weather {"city":"Paris"}' };
    const res = await t.call("/v1/chat/completions", {
      method: "POST",
      json: { model: "openclaw", user: "tools", messages: [user], tools: [weather] },
    });
    expect(res.status, res.text).toBe(200);
    const choice = res.data.choices[0];
    expect(choice.finish_reason).toBe("tool_calls");
    // Commentary before the call is not in the answer (it stays in the transcript).
    expect(choice.message.content).toBe("");
    expect(choice.message.tool_calls).toEqual([
      {
        id: expect.stringMatching(/^[0-9a-f]{9}$/),
        type: "function",
        function: { name: "get_weather", arguments: '{"city":"Paris"}' },
      },
    ]);
    const run = await t.call(`/v1/runs/${res.data.id}`);
    expect(run.data.run).toMatchObject({ status: "ok", stopReason: "toolUse" });
    // The transcript: the model's step with its call, then OpenClaw's synthetic "delegated" result.
    const key = "agent:main:openai-user:tools";
    const transcript = await t.call(`/sessions/${encodeURIComponent(key)}/history?includeTools=1`);
    const records = transcript.data.messages.slice(-2);
    expect(records[0]).toMatchObject({ role: "assistant", stopReason: "toolUse" });
    expect(records[0].content).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: "toolCall", name: "get_weather" })]),
    );
    expect(records[1]).toMatchObject({ role: "toolResult", toolName: "get_weather" });
    expect(JSON.parse(records[1].content[0].text)).toEqual({
      status: "pending",
      tool: "get_weather",
      message: "Tool execution delegated to client",
    });

    const callId = choice.message.tool_calls[0].id;
    const followUp = await t.call("/v1/chat/completions", {
      method: "POST",
      json: {
        model: "openclaw",
        user: "tools",
        tools: [weather],
        messages: [
          { role: "user", content: "Weather in Paris?" },
          choice.message,
          { role: "tool", tool_call_id: callId, content: "sunny, 21 °C" },
        ],
      },
    });
    expect(followUp.status, followUp.text).toBe(200);
    expect(followUp.data.id).not.toBe(res.data.id);
    expect(followUp.data.choices[0]).toMatchObject({ finish_reason: "stop", message: { role: "assistant" } });
    const turn = await t.call(`/v1/runs/${followUp.data.id}`);
    expect(turn.data.run.message).toContain(`Tool:${callId}: sunny, 21 °C`);
  });

  it("streams the calls after the run (identity chunk, argument chunks, finish tool_calls)", async () => {
    const t = await modelTenant();
    const res = await t.call("/v1/chat/completions", {
      method: "POST",
      json: {
        stream: true,
        messages: [{ role: "user", content: 'SAY(hmm) CALL get_weather {"city":"Oslo"}' }],
        tools: [weather],
        tool_choice: "required",
      },
    });
    const chunks = sseFrames(res.text);
    expect(chunks[0].choices[0].delta).toEqual({ role: "assistant" });
    // No text streamed: the commentary is held back and dropped.
    expect(chunks.some((chunk) => chunk.choices[0]?.delta?.content)).toBe(false);
    expect(chunks[1].choices[0].delta.tool_calls[0]).toMatchObject({
      index: 0,
      type: "function",
      function: { name: "get_weather", arguments: "" },
    });
    expect(chunks[2].choices[0].delta.tool_calls[0]).toEqual({ index: 0, function: { arguments: '{"city":"Oslo"}' } });
    expect(chunks.at(-1).choices[0]).toEqual({ index: 0, delta: {}, finish_reason: "tool_calls" });
  });

  it("answers function_call items on responses, and continues with function_call_output", async () => {
    const t = await modelTenant();
    const tool = { type: "function", name: "get_weather", parameters: weather.function.parameters };
    const res = await t.call("/v1/responses", {
      method: "POST",
      json: { model: "openclaw", input: 'CALL get_weather {"city":"Rome"}', tools: [tool] },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.data).toMatchObject({ status: "completed" });
    const run = await t.call(`/v1/runs/${res.data.id}`);
    expect(res.data.output).toEqual([
      {
        type: "function_call",
        id: expect.stringMatching(/^call_/),
        call_id: expect.stringMatching(/^[0-9a-f]{9}$/),
        name: "get_weather",
        arguments: '{"city":"Rome"}',
      },
    ]);
    const next = await t.call("/v1/responses", {
      method: "POST",
      json: {
        model: "openclaw",
        previous_response_id: res.data.id,
        input: [{ type: "function_call_output", call_id: res.data.output[0].call_id, output: "cloudy" }],
        tools: [tool],
      },
    });
    expect(next.status, next.text).toBe(200);
    expect(next.data.output[0]).toMatchObject({ type: "message", content: [{ type: "output_text" }] });
    const turn = await t.call(`/v1/runs/${next.data.id}`);
    expect(turn.data.run).toMatchObject({
      sessionKey: run.data.run.sessionKey,
      message: `Tool:${res.data.output[0].call_id}: cloudy`,
    });

    const stream = await t.call("/v1/responses", {
      method: "POST",
      json: { model: "openclaw", input: 'CALL get_weather {"city":"Bern"}', tools: [tool], stream: true },
    });
    const frames = stream.text
      .split("\n\n")
      .filter(Boolean)
      .map((frame) => ({
        event: frame
          .split("\n")
          .find((line) => line.startsWith("event: "))
          ?.slice(7),
        data: frame
          .split("\n")
          .find((line) => line.startsWith("data: "))
          ?.slice(6),
      }))
      .filter((frame) => frame.event);
    expect(frames.slice(-6).map((frame) => frame.event)).toEqual([
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.output_item.done",
      "response.completed",
    ]);
    const completed = JSON.parse(frames.at(-1)!.data!).response;
    expect(completed.output.map((item: { type: string }) => item.type)).toEqual(["message", "function_call"]);
    expect(completed.output[0]).toMatchObject({ phase: "commentary", content: [{ type: "output_text", text: "" }] });
  });
});
