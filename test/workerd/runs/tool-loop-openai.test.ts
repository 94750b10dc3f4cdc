import { describe, expect, inject, it } from "vitest";
import { call, until } from "../support/helpers";
import { keepOpen, toolModel as model, toolLoopTenant as tenantWith, transcript } from "../support/tool-loop-tenant";
import { GatewayClient } from "../support/ws-helpers";

async function turn(client: GatewayClient, message: string, runId: string, sessionKey = "main") {
  await client.request("chat.send", { sessionKey, message, idempotencyKey: runId });
  return client.waitFor(
    (f) => f.event === "chat" && f.payload.runId === runId && ["final", "error", "aborted"].includes(f.payload.state),
    15_000,
  );
}

describe("tool loop (openai runner)", () => {
  it("runs a sessions_list call and records it as OpenClaw does", async () => {
    const { token, client } = await tenantWith("tl-list");
    const done = await turn(client, 'CALL sessions_list {"limit":5}', "tl-list-1");
    expect(done.payload.state).toBe("final");
    const messages = await transcript("tl-list", token);
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    const [, call, result, final] = messages;
    expect(call!.content).toEqual([
      { type: "toolCall", id: expect.stringMatching(/^call_\d+_0$/), name: "sessions_list", arguments: { limit: 5 } },
    ]);
    expect(call!.stopReason).toBe("toolUse");
    expect(call!.usage).toMatchObject({ input: expect.any(Number), output: 7 });
    expect(call!.responseId).toMatch(/^chatcmpl-mock-/);
    expect(result).toMatchObject({ toolCallId: call!.content[0].id, toolName: "sessions_list", isError: false });
    expect(JSON.parse(result!.content[0].text)).toEqual(result!.details);
    expect(result!.details.sessions[0].key).toBe("main");
    expect(final!.stopReason).toBe("stop");
    expect(final!.content[0].text).toMatch(/^DONE: \{ "count": 1/);
  });

  it("feeds tool errors back to the model and ends ok", async () => {
    const { token, client } = await tenantWith("tl-errors");
    const done = await turn(
      client,
      'CALL sessions_history {"sessionKey":"agent:main:nope"} && CALL sessions_history {} && CALL nosuch_tool {}',
      "tl-err-1",
    );
    expect(done.payload.state).toBe("final");
    const results = (await transcript("tl-errors", token)).filter((m) => m.role === "toolResult");
    expect(results.map((r) => r.isError)).toEqual([true, true, true]);
    // As the real gateway (recording 13): a key no session has is named before visibility is checked.
    expect(results[0]!.details).toEqual({ status: "error", error: "No session found: agent:main:nope" });
    expect(results[1]!.content[0].text).toMatch(
      /^Validation failed for tool "sessions_history":\n {2}- sessionKey: .*\n\nReceived arguments:\n\{\}$/,
    );
    expect(results[2]!.content[0].text).toBe("Tool nosuch_tool not found");
    // Results in call order, all answered in one follow-up call.
    expect(results.map((r) => r.toolName)).toEqual(["sessions_history", "sessions_history", "nosuch_tool"]);
  });

  it("chat.history shows pre-tool text as its own row and the tool items in activity, as OpenClaw's", async () => {
    const { client } = await tenantWith("tl-activity");
    const done = await turn(
      client,
      'SAY(Looking around.) CALL sessions_list {"limit":1} THEN CALL sessions_history {"sessionKey":"agent:main:gone"} THEN FINAL(Done.)',
      "tl-act-1",
    );
    expect(done.payload.state).toBe("final");
    const res = await client.request("chat.history", { sessionKey: "main" });
    const { messages, activity } = res.payload;
    const shapes = messages.map((m: any) => `${m.role}:${m.content.map?.((b: any) => b.type).join("+") ?? "text"}`);
    expect(shapes).toEqual([
      "user:text",
      "assistant:text",
      "assistant:toolCall",
      "toolResult:text",
      "assistant:toolCall",
      "toolResult:text",
      "assistant:text",
    ]);
    const [, pretext, calls] = messages;
    // The split rows share the message's id and seq; the text row is marked as a stream segment.
    expect(pretext.__openclaw).toEqual(calls.__openclaw);
    expect(pretext.openclawStreamFallback).toMatchObject({ replacementText: "Looking around.", source: "segment" });
    expect(pretext.usage).toBeUndefined();
    expect(calls.stopReason).toBe("toolUse");
    const itemsOf = (id: string) => activity.find((a: any) => a.messageId === id)?.items;
    const [listCall] = calls.content;
    const listItem = {
      itemId: `tool:${listCall.id}`,
      toolCallId: listCall.id,
      name: "sessions_list",
      kind: "tool",
      phase: "end",
      title: "Sessions",
      status: "completed",
      commandBearing: false,
    };
    expect(itemsOf(calls.__openclaw.id)).toEqual([listItem]);
    expect(itemsOf(messages[3].__openclaw.id)).toEqual([listItem]);
    expect(itemsOf(messages[5].__openclaw.id)).toEqual([
      expect.objectContaining({ name: "sessions_history", title: "Session History", status: "failed" }),
    ]);
    expect(activity).toHaveLength(4);
  });

  it("runs a three-step chain and sums usage over the model calls", async () => {
    const { client } = await tenantWith("tl-chain");
    await client.request("sessions.messages.subscribe", { key: "main" });
    const done = await turn(
      client,
      'CALL sessions_list {"limit":1} THEN CALL agents_list {} THEN CALL session_status {}',
      "tl-chain-1",
    );
    expect(done.payload.state).toBe("final");
    const wait = await client.request("agent.wait", { runId: "tl-chain-1", timeoutMs: 5000 });
    expect(wait.payload.status).toBe("ok");
    const items = client
      .events("agent")
      .filter((e) => e.payload.runId === "tl-chain-1" && e.payload.stream === "item")
      .map((e) => `${e.payload.data.phase}:${e.payload.data.name}:${e.payload.data.status}`);
    expect(items).toEqual([
      "start:sessions_list:running",
      "end:sessions_list:completed",
      "start:agents_list:running",
      "end:agents_list:completed",
      "start:session_status:running",
      "end:session_status:completed",
    ]);
    const usage = client
      .events("agent")
      .filter((e) => e.payload.runId === "tl-chain-1" && e.payload.stream === "usage")
      .map((e) => e.payload.data.outputTokens);
    expect(usage).toEqual([7, 14, 21, 28]);
    // As the real gateway: no session.message for a tool result, so its messageSeq is skipped.
    const pushed = client
      .events("session.message")
      .filter((e) => e.payload.sessionKey === "agent:main:main")
      .map((e) => `${e.payload.messageSeq}:${e.payload.message.role}`);
    expect(pushed).toEqual(["1:user", "2:assistant", "4:assistant", "6:assistant", "8:assistant"]);
  });

  it("sums input, output, total and cost over every model call: run record, ledger, sessions.usage", async () => {
    // Priced: USD 2 per million input tokens, 10 per million output tokens.
    const { token, client } = await tenantWith("tl-usage", {}, { cost: { input: 2, output: 10 } });
    const done = await turn(client, 'CALL sessions_list {"limit":1} THEN CALL agents_list {}', "tl-usage-1");
    expect(done.payload.state).toBe("final");
    // Three model calls, each with its own usage on its assistant message (7 output tokens each).
    const calls = (await transcript("tl-usage", token)).filter((m) => m.role === "assistant").map((m) => m.usage);
    expect(calls).toHaveLength(3);
    const summed = (field: string) => calls.reduce((n, usage) => n + usage[field], 0);
    const expected = { input: summed("input"), output: 21, totalTokens: summed("totalTokens") };
    expect(expected.totalTokens).toBe(expected.input + expected.output);
    const run = await call("/t/tl-usage/v1/runs/tl-usage-1?wait=5", { token });
    expect(run.data.run.usage).toEqual(expected);
    const today = new Date().toISOString().slice(0, 10);
    const usage = await until(
      () => client.request("sessions.usage", { startDate: today, endDate: today }),
      (answer) => answer.payload?.totals?.totalTokens > 0,
    );
    expect(usage.payload.totals).toMatchObject(expected);
    expect(usage.payload.totals.totalCost).toBeCloseTo((expected.input * 2 + expected.output * 10) / 1e6, 12);
    const [session] = usage.payload.sessions;
    expect(session.usage).toMatchObject(expected);
    // The session row counts the same calls.
    const list = await call("/t/tl-usage/v1/sessions", { token });
    const row = list.data.sessions.find((entry: { key: string }) => entry.key === "agent:main:main");
    expect(row).toMatchObject({ inputTokens: expected.input, outputTokens: 21, totalTokens: expected.totalTokens });
  });

  it("counts each tool's calls in sessions.usage, in OpenClaw's shape (the Usage page's Top Tools)", async () => {
    const { client } = await tenantWith("tl-tools");
    const chain = 'CALL sessions_list {"limit":1} THEN CALL agents_list {} THEN CALL sessions_list {"limit":2}';
    expect((await turn(client, chain, "tl-tools-1")).payload.state).toBe("final");
    const today = new Date().toISOString().slice(0, 10);
    const usage = await until(
      () => client.request("sessions.usage", { startDate: today, endDate: today }),
      (answer) => answer.payload?.aggregates?.tools?.totalCalls > 0,
    );
    const tools = {
      totalCalls: 3,
      uniqueTools: 2,
      tools: [
        { name: "sessions_list", count: 2 },
        { name: "agents_list", count: 1 },
      ],
    };
    expect(usage.payload.aggregates.tools).toEqual(tools);
    expect(usage.payload.sessions[0].usage.toolUsage).toEqual(tools);
  });

  it("stops an endless loop at the round cap with a clear error", async () => {
    const { client: capped } = await tenantWith("tl-cap", {
      agents: {
        defaults: { maxToolRounds: 3 },
        list: [{ id: "main", default: true, runner: { type: "openai", baseUrl: model, model: "mock" } }],
      },
    });
    const done = await turn(capped, 'LOOP sessions_list {"limit":1}', "tl-cap-1");
    expect(done.payload.state).toBe("error");
    expect(done.payload.errorMessage).toMatch(/Tool loop stopped: .*3 rounds/);
  });

  it("stops an endless loop on chat.abort", async () => {
    const { token, client } = await tenantWith("tl-abort");
    await client.request("chat.send", {
      sessionKey: "main",
      message: 'LOOP sessions_list {"limit":1}',
      idempotencyKey: "tl-ab",
    });
    await client.waitFor(
      (f) =>
        f.event === "agent" &&
        f.payload.runId === "tl-ab" &&
        f.payload.stream === "item" &&
        f.payload.data.phase === "end",
      10_000,
    );
    const aborted = await client.request("chat.abort", { sessionKey: "main", runId: "tl-ab" });
    expect(aborted.payload).toMatchObject({ ok: true, aborted: true });
    const end = await client.waitFor(
      (f) => f.event === "chat" && f.payload.runId === "tl-ab" && f.payload.state === "aborted",
    );
    expect(end.payload.stopReason).toBe("rpc");
    const before = (await transcript("tl-abort", token)).length;
    await new Promise((r) => setTimeout(r, 300));
    expect((await transcript("tl-abort", token)).length).toBe(before);
  });

  it("sends to another session and waits for its reply", async () => {
    const { token, client } = await tenantWith("tl-send", { tools: { sessions: { visibility: "agent" } } });
    await turn(client, "hello other", "tl-send-0", "agent:main:other");
    const done = await turn(
      client,
      'CALL sessions_send {"sessionKey":"agent:main:other","message":"ping","timeoutSeconds":10}',
      "tl-send-1",
    );
    expect(done.payload.state).toBe("final");
    const result = (await transcript("tl-send", token)).find((m) => m.role === "toolResult")!;
    expect(result.details).toMatchObject({ status: "ok", reply: "ECHO: ping" });
    const target = await transcript("tl-send", token, "agent:main:other");
    expect(target.filter((m) => m.role === "user" && m.content === "ping")).toHaveLength(1);
  });

  it("spawns a sub-agent that gets the sub-agent tool surface", async () => {
    const { token, client } = await tenantWith("tl-spawn", {
      agents: {
        defaults: { subagents: { maxSpawnDepth: 2 } },
        list: [{ id: "main", default: true, runner: { type: "openai", baseUrl: model, model: "mock" } }],
      },
    });
    const done = await turn(client, 'CALL sessions_spawn {"task":"say hi","label":"kid"}', "tl-spawn-1");
    expect(done.payload.state).toBe("final");
    const result = (await transcript("tl-spawn", token)).find((m) => m.role === "toolResult")!;
    expect(result.details).toMatchObject({ status: "accepted", childSessionKey: expect.stringMatching(/:subagent:/) });
    const child = result.details.childSessionKey as string;
    const childMessages = await transcript("tl-spawn", token, child);
    expect(childMessages[0]!.role).toBe("user");
  });
});

describe("tool events", () => {
  it("sends arguments and results as agent tool to tool-event clients, session.tool to subscribers, nothing to others", async () => {
    const { token, client: plain } = await tenantWith("tl-events");
    const ui = keepOpen(await GatewayClient.open("/t/tl-events"));
    expect((await ui.handshake({ token, extra: { caps: ["tool-events"] } })).ok).toBe(true);
    const watcher = keepOpen(await GatewayClient.connect({ path: "/t/tl-events", token }));
    await watcher.request("sessions.subscribe", {});
    await turn(ui, 'CALL sessions_list {"limit":1}', "tl-ev-1");
    await watcher.waitFor((f) => f.event === "session.tool" && f.payload.data?.phase === "result");
    const toolFrames = (c: GatewayClient) =>
      c.frames.filter((f) => f.type === "event" && f.payload?.runId === "tl-ev-1" && f.payload?.stream === "tool");
    expect(toolFrames(ui).map((f) => `${f.event}:${f.payload.data.phase}`)).toEqual(["agent:start", "agent:result"]);
    expect(toolFrames(watcher).map((f) => `${f.event}:${f.payload.data.phase}`)).toEqual([
      "session.tool:start",
      "session.tool:result",
    ]);
    expect(toolFrames(watcher)[0]!.payload.data.args).toEqual({ limit: 1 });
    expect(toolFrames(plain)).toEqual([]);
    // Item rows reach everyone.
    expect(plain.frames.some((f) => f.event === "agent" && f.payload?.stream === "item")).toBe(true);
  });
});

describe("tool loop (webhook runner)", () => {
  it("runs the tool calls a webhook host answers with and calls it again with the results", async () => {
    const peer = `http://127.0.0.1:${inject("peerPort")}`;
    const { token, client } = await tenantWith("tl-hook", {
      agents: {
        list: [{ id: "main", default: true, runner: { type: "webhook", url: `${peer}/webhook/tools`, tools: true } }],
      },
    });
    const done = await turn(client, "use a tool", "tl-hook-1");
    expect(done.payload.state).toBe("final");
    const messages = await transcript("tl-hook", token);
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    expect(messages[1]!.content).toEqual([
      { type: "text", text: "looking" },
      { type: "toolCall", id: "hook-call-1", name: "agents_list", arguments: {} },
    ]);
    expect(messages[3]!.content[0].text).toMatch(/^HOOK saw agents_list: \{/);
    // The chat stream is one text over the rounds, joined by a blank line.
    expect(done.payload.message.content[0].text).toMatch(/^looking\n\nHOOK saw/);
  });
});
