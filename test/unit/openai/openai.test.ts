import { describe, expect, it } from "vitest";
import { runFailure } from "../../../src/features/openai/chat-wire";
import { chatToolSpec, responsesToolSpec, unmetToolChoice } from "../../../src/features/openai/client-tools";
import { OpenAiError, schemaMessage } from "../../../src/features/openai/errors";
import { modelIds, parseModelTarget, resolveAgent, retrieveModel } from "../../../src/features/openai/models";
import { chatCompletionRequestSchema, responsesRequestSchema } from "../../../src/features/openai/openai-schemas";
import {
  derivedKeyPrefixes,
  isReservedSessionKey,
  openAiSessionKey,
} from "../../../src/features/openai/openai-session-key";
import { chatTurn, responsesTurn } from "../../../src/features/openai/prompt";
import type { TenantConfig } from "../../../src/protocol/config";
import { upstreamFailureText } from "../../../src/runs/runners/upstream-failure";

const single: TenantConfig = {};
const multi: TenantConfig = { agents: { list: [{ id: "main", default: true }, { id: "research" }] } };

/** The OpenAI error a function throws (status and message), or null. */
function refusal(fn: () => unknown): { status: number; message: string } | null {
  try {
    fn();
    return null;
  } catch (error) {
    if (!(error instanceof OpenAiError)) throw error;
    return { status: error.status, message: error.message };
  }
}

describe("model strings name agents (SPEC §2, §3.2)", () => {
  it("parses OpenClaw's forms and refuses provider models", () => {
    expect(parseModelTarget(undefined)).toEqual({ kind: "default" });
    expect(parseModelTarget("")).toEqual({ kind: "default" });
    expect(parseModelTarget("OPENCLAW")).toEqual({ kind: "default" });
    expect(parseModelTarget("openclaw/default")).toEqual({ kind: "default" });
    expect(parseModelTarget("OpenClaw/MAIN")).toEqual({ kind: "agent", agentId: "main" });
    expect(parseModelTarget("openclaw:research")).toEqual({ kind: "agent", agentId: "research" });
    expect(parseModelTarget("agent:research")).toEqual({ kind: "agent", agentId: "research" });
    expect(parseModelTarget("gpt-4o")).toBeNull();
    expect(parseModelTarget("openclaw/")).toBeNull();
  });

  it("resolves the agent: model first, header overrides, unknown agents refused", () => {
    expect(resolveAgent(single, "openclaw")).toBe("main");
    expect(resolveAgent(multi, "openclaw/research")).toBe("research");
    expect(refusal(() => resolveAgent(single, "openclaw/nope"))).toEqual({
      status: 400,
      message: "Unknown agent 'nope'.",
    });
    expect(refusal(() => resolveAgent(single, "gpt-4o", "main"))?.message).toBe(
      "Invalid `model`. Use `openclaw` or `openclaw/<agentId>`.",
    );
    expect(resolveAgent(single, "openclaw/nope", "main")).toBe("main");
    expect(refusal(() => resolveAgent(single, "openclaw", "Bad Id!"))?.message).toBe("Unknown agent 'Bad Id!'.");
    expect(refusal(() => resolveAgent(single, "openclaw", "research"))?.message).toBe("Unknown agent 'research'.");
  });

  it("lists the aliases then every agent, and retrieves only listed ids exactly", () => {
    expect(modelIds(single)).toEqual(["openclaw", "openclaw/default", "openclaw/main"]);
    expect(modelIds(multi)).toEqual(["openclaw", "openclaw/default", "openclaw/main", "openclaw/research"]);
    expect(retrieveModel(single, "openclaw%2Fmain").id).toBe("openclaw/main");
    expect(retrieveModel(single, "openclaw/main").id).toBe("openclaw/main");
    expect(refusal(() => retrieveModel(single, ""))?.message).toBe("Missing model id.");
    expect(refusal(() => retrieveModel(single, "%E0%A4%A"))?.message).toBe("Invalid model id encoding.");
    expect(refusal(() => retrieveModel(single, "gpt-4o"))?.message).toBe("Invalid model id.");
    for (const alias of ["openclaw%3Amain", "agent%3Amain", "OPENCLAW", "openclaw%2FMain", "openclaw%2Fnope"]) {
      expect(refusal(() => retrieveModel(single, alias))?.status).toBe(404);
    }
    expect(refusal(() => retrieveModel(single, "openclaw%2Fnope"))?.message).toBe("Model 'openclaw/nope' not found.");
  });
});

describe("session keys (SPEC §3.3, §5.3)", () => {
  const key = (input: Partial<Parameters<typeof openAiSessionKey>[0]>) =>
    openAiSessionKey({ config: multi, agentId: "main", surface: "openai", ...input });

  it("derives keys from the header first, then user, else a fresh key", () => {
    expect(key({ header: "my-app:thread-1" })).toBe("agent:main:my-app:thread-1");
    expect(key({ header: "My-App:Thread-2" })).toBe("agent:main:my-app:thread-2");
    expect(key({ header: "  spaced key  " })).toBe("agent:main:spaced key");
    expect(key({ header: "Agent:Main:MixedCase-Key" })).toBe("agent:main:mixedcase-key");
    expect(key({ header: "main" })).toBe("agent:main:main");
    expect(key({ header: "global" })).toBe("global");
    // A bare header key takes the default agent, not the requested one.
    expect(key({ header: "thread-9", agentId: "research" })).toBe("agent:main:thread-9");
    expect(key({ header: "h", user: "alice" })).toBe("agent:main:h");
    expect(key({ user: "ALICE" })).toBe("agent:main:openai-user:alice");
    expect(key({ user: "  Conv:ABC Def/9  " })).toBe("agent:main:openai-user:conv:abc def/9");
    expect(key({ user: "Zed", agentId: "research" })).toBe("agent:research:openai-user:zed");
    expect(key({ user: "Dana", surface: "openresponses" })).toBe("agent:main:openresponses-user:dana");
    expect(key({ user: "   " })).toMatch(/^agent:main:openai:[0-9a-f-]{36}$/);
    expect(key({})).not.toBe(key({}));
  });

  it("refuses reserved namespaces and unknown agents in the header", () => {
    for (const reserved of [
      "subagent:x",
      "cron:nightly",
      "acp:abc",
      "SUBAGENT:x",
      "agent:main:subagent:child",
      "agent:main:cron:job1",
      "agent:main:acp:s1",
    ]) {
      expect(isReservedSessionKey(reserved)).toBe(true);
      expect(refusal(() => key({ header: reserved }))?.message).toBe(
        "`x-openclaw-session-key` cannot use reserved internal session namespaces.",
      );
    }
    expect(refusal(() => key({ header: "agent:other:thing" }))?.message).toBe("Unknown agent 'other'.");
  });

  it("tells derived keys from header keys (previous_response_id continues only derived ones)", () => {
    const derived = (key: string, agentId = "main") =>
      derivedKeyPrefixes(agentId, "openresponses").some((prefix) => key.startsWith(prefix));
    expect(derived("agent:main:openresponses:0b7e")).toBe(true);
    expect(derived("agent:main:openresponses-user:dana")).toBe(true);
    expect(derived("agent:main:my-thread")).toBe(false);
    expect(derived("agent:main:openai-user:dana")).toBe(false);
    expect(derived("agent:main:openresponsesx:0b7e")).toBe(false);
    expect(derived("agent:research:openresponses:0b7e")).toBe(false);
    expect(derived("agent:research:openresponses:0b7e", "research")).toBe(true);
  });
});

describe("messages become one agent turn (SPEC §3.4, §5.2)", () => {
  it("sends a lone user message as it is, with system text apart", () => {
    expect(chatTurn([{ role: "user", content: "hello" }])).toEqual({ message: "hello" });
    expect(
      chatTurn([
        { role: "system", content: "You are terse." },
        { role: "developer", content: "Dev note." },
        {
          role: "user",
          content: [
            { type: "text", text: "part one" },
            { type: "text", text: "part two" },
          ],
        },
      ]),
    ).toEqual({ message: "part one\npart two", extraSystemPrompt: "You are terse.\n\nDev note." });
    expect(chatTurn([{ role: "assistant", content: "just assistant" }])).toEqual({ message: "just assistant" });
  });

  it("builds the history block and drops a trailing assistant prefill", () => {
    expect(
      chatTurn([
        { role: "user", content: "q1" },
        { role: "assistant", content: "a1" },
        { role: "user", content: "q2" },
        { role: "assistant", content: "prefill" },
      ]).message,
    ).toBe(
      "[Chat messages since your last reply - for context]\nUser: q1\nAssistant: a1\n\n[Current message - respond to this]\nUser: q2",
    );
  });

  it("renders tool calls and tool results as OpenClaw does", () => {
    expect(
      chatTurn([
        { role: "user", content: 'CALL2 get_weather {"city":"Lima"} get_time {}' },
        {
          role: "assistant",
          content: "",
          tool_calls: [
            { id: "5415717db", type: "function", function: { name: "get_weather", arguments: '{"city":"Lima"}' } },
            { id: "e954e4c77", type: "function", function: { name: "get_time", arguments: "{}" } },
          ],
        },
        { role: "tool", tool_call_id: "5415717db", content: "Cloudy" },
        { role: "tool", tool_call_id: "e954e4c77", content: "" },
      ]).message,
    ).toBe(
      '[Chat messages since your last reply - for context]\nUser: CALL2 get_weather {"city":"Lima"} get_time {}\nAssistant: tool_call id=5415717db name=get_weather arguments={"city":"Lima"}\ntool_call id=e954e4c77 name=get_time arguments={}\nTool:5415717db: Cloudy\n\n[Current message - respond to this]\nTool:e954e4c77: ',
    );
  });

  it("refuses conversations with nothing to answer", () => {
    for (const messages of [
      undefined,
      [],
      [{ role: "system", content: "x" }],
      [{ role: "user", content: "  " }],
      [{ role: "user", content: null }],
      [{ role: "critic", content: "x" }],
      ["hi", 3],
    ]) {
      expect(refusal(() => chatTurn(messages as unknown[]))?.message).toBe("Missing user message in `messages`.");
    }
  });

  it("flattens responses items: instructions first, function calls and outputs", () => {
    const input = responsesRequestSchema.parse({
      model: "openclaw",
      input: [
        { type: "message", role: "system", content: "System item." },
        { type: "message", role: "user", content: "weather?" },
        { type: "function_call", call_id: "abc123def", name: "get_weather", arguments: "{}" },
        { type: "function_call_output", call_id: "abc123def", output: "Sunny" },
      ],
    }).input;
    expect(responsesTurn(input, "Be brief.")).toEqual({
      message:
        "[Chat messages since your last reply - for context]\nUser: weather?\nAssistant: tool_call id=abc123def name=get_weather arguments={}\n\n[Current message - respond to this]\nTool:abc123def: Sunny",
      extraSystemPrompt: "Be brief.\n\nSystem item.",
    });
    // A follow-up with previous_response_id carries the output alone: stored as "Tool:<call_id>: <output>".
    const followUp = responsesRequestSchema.parse({
      model: "openclaw",
      input: [{ type: "function_call_output", call_id: "a21126b50", output: "Sunny" }],
    }).input;
    expect(responsesTurn(followUp)).toEqual({ message: "Tool:a21126b50: Sunny" });
    expect(refusal(() => responsesTurn(""))?.message).toBe("Missing user message in `input`.");
    expect(refusal(() => responsesTurn([]))?.message).toBe("Missing user message in `input`.");
  });
});

describe("schema messages are OpenClaw's (first issue, dotted path)", () => {
  const chat = (body: unknown) => {
    const parsed = chatCompletionRequestSchema.safeParse(body);
    return parsed.success ? null : schemaMessage(parsed.error);
  };
  const resp = (body: unknown) => {
    const parsed = responsesRequestSchema.safeParse(body);
    return parsed.success ? null : schemaMessage(parsed.error);
  };

  it("chat", () => {
    expect(chat([])).toBe(": Invalid input: expected object, received array");
    expect(chat(null)).toBe(": Invalid input: expected object, received null");
    expect(chat({ messages: "hi" })).toBe("messages: Invalid input: expected array, received string");
    expect(chat({ max_tokens: 0 })).toBe("max_tokens: Too small: expected number to be >0");
    expect(chat({ max_tokens: 1.5 })).toBe("max_tokens: Invalid input: expected int, received number");
    expect(chat({ max_tokens: 1e20 })).toBe("max_tokens: Too big: expected int to be <=9007199254740991");
    expect(chat({ stop: 5 })).toBe("stop: Invalid input");
    expect(chat({ stream: "yes" })).toBe("stream: Invalid input: expected boolean, received string");
    expect(chat({ stream_options: "x" })).toBe("stream_options: Invalid input: expected object, received string");
    expect(chat({ model: 5 })).toBe("model: Invalid input: expected string, received number");
    expect(chat({ n: 3, logprobs: true, foo: { bar: 1 } })).toBeNull();
  });

  it("responses (strict)", () => {
    expect(resp({ input: "x" })).toBe("model: Invalid input: expected string, received undefined");
    expect(resp({ model: "openclaw" })).toBe("input: Invalid input");
    expect(resp({ model: "openclaw", input: "x", foo: 1 })).toBe(': Unrecognized key: "foo"');
    expect(resp({ model: "openclaw", input: [{ content: "no type, no role" }] })).toBe("input: Invalid input");
    expect(resp({ model: "openclaw", input: [{ type: "web_search_call", id: "ws_1" }] })).toBe("input: Invalid input");
    expect(resp({ model: "openclaw", input: [{ type: "message", role: "user", content: "x", name: "bob" }] })).toBe(
      'input.0: Unrecognized key: "name"',
    );
    expect(
      resp({ model: "openclaw", input: [{ type: "message", role: "user", phase: "commentary", content: "x" }] }),
    ).toBe("input.0.phase: `phase` is only valid on assistant messages.");
    expect(resp({ model: "openclaw", input: "x", text: { format: { type: "json_schema" } } })).toBe(
      'text.format.type: Invalid input: expected "text"',
    );
    expect(resp({ model: "openclaw", input: "x", temperature: 3 })).toBe(
      "temperature: Too big: expected number to be <=2",
    );
    expect(resp({ model: "openclaw", input: "x", max_output_tokens: 0 })).toBe(
      "max_output_tokens: Too small: expected number to be >0",
    );
    expect(resp({ model: "openclaw", input: "x", tools: [{ type: "function", function: { name: "f" } }] })).toBe(
      "tools.0.name: Invalid input: expected string, received undefined",
    );
    expect(resp({ model: "openclaw", input: "x", include: "reasoning.encrypted_content" })).toBe(
      "include: Invalid input: expected array, received string",
    );
  });

  it("responses: what the frameworks send (role-only messages, include, parallel_tool_calls) is accepted", () => {
    // The AI SDK's Responses model: messages without `type`; the Agents SDK: `include: []`.
    const body = responsesRequestSchema.parse({
      model: "openclaw",
      input: [
        { role: "system", content: "Be brief." },
        { role: "user", content: [{ type: "input_text", text: "weather?" }] },
        { role: "assistant", content: [{ type: "output_text", text: "Let me look.", annotations: [] }], id: "msg_1" },
      ],
      include: ["reasoning.encrypted_content", "message.output_text.logprobs"],
    });
    expect(body.input).toMatchObject([
      { type: "message", role: "system" },
      { type: "message", role: "user" },
      { type: "message", role: "assistant" },
    ]);
    // The trailing assistant message is a prefill, dropped as for typed items.
    expect(responsesTurn(body.input)).toEqual({ message: "weather?", extraSystemPrompt: "Be brief." });
    expect(resp({ model: "openclaw", input: "x", include: [] })).toBeNull();
    expect(resp({ model: "openclaw", input: "x", parallel_tool_calls: false })).toBeNull();
    expect(resp({ model: "openclaw", input: [{ role: "user", content: "x", name: "bob" }] })).toBe(
      'input.0: Unrecognized key: "name"',
    );
  });
});

describe("client tools (SPEC §4.1, §5.6)", () => {
  const fn = (name: string) => ({ type: "function", function: { name, parameters: { type: "object" } } });

  it("validates chat tools and choices with OpenClaw's texts", () => {
    expect(chatToolSpec(undefined, undefined)).toBeNull();
    expect(chatToolSpec([fn("get_weather")], "auto")).toEqual({
      tools: [{ name: "get_weather", parameters: { type: "object" } }],
      choice: "auto",
    });
    expect(chatToolSpec([fn("a"), fn("b")], "none")?.tools).toEqual([]);
    expect(
      chatToolSpec([fn("a"), fn("b")], { type: "function", function: { name: "b" } })?.tools.map((t) => t.name),
    ).toEqual(["b"]);
    const cases: Array<[unknown[] | undefined, unknown, string]> = [
      [[{ type: "web_search" }], undefined, "Invalid tools/tool_choice: only function tools are supported"],
      [[{ type: "function", function: {} }], undefined, "Invalid tools/tool_choice: tool.function.name is required"],
      [undefined, "required", "Invalid tools/tool_choice: tool_choice=required but no tools were provided"],
      [
        [fn("a")],
        { type: "function", function: { name: "zz" } },
        "Invalid tools/tool_choice: tool_choice requested unknown tool: zz",
      ],
      [
        [fn("a")],
        { type: "function", function: {} },
        "Invalid tools/tool_choice: tool_choice.function.name is required",
      ],
      [[fn("a")], { type: "allowed_tools" }, "Invalid tools/tool_choice: tool_choice allowed_tools is not supported"],
      [[fn("a")], "bogus", "Invalid tools/tool_choice: tool_choice must be a string or object"],
      [[fn("a"), fn("a")], undefined, "invalid tool configuration"],
      [[fn("sessions_list")], undefined, "invalid tool configuration"],
    ];
    for (const [tools, choice, message] of cases)
      expect(refusal(() => chatToolSpec(tools, choice))?.message).toBe(message);
  });

  it("answers responses tool refusals with the one generic text, and checks choices after the run", () => {
    expect(refusal(() => responsesToolSpec({ tools: [], tool_choice: { type: "function", name: "x" } }))?.message).toBe(
      "invalid tool configuration",
    );
    const spec = responsesToolSpec({ tools: [{ type: "function", name: "get_weather" }], tool_choice: "required" });
    expect(unmetToolChoice(spec, [])).toBe("tool_choice=required was not satisfied by the agent response");
    expect(unmetToolChoice(spec, [{ id: "abc", name: "get_weather", arguments: "{}" }])).toBeNull();
    const pinned = chatToolSpec([fn("get_weather")], { type: "function", function: { name: "get_weather" } });
    expect(unmetToolChoice(pinned, [])).toBe(
      "tool_choice required a get_weather tool call, but the agent did not produce one",
    );
  });
});

describe("images and files (SPEC §3.8, §5.1)", () => {
  const chatWithImage = (url: unknown) => [
    {
      role: "user",
      content: [
        { type: "text", text: "see" },
        { type: "image_url", image_url: { url } },
      ],
    },
  ];

  it("refuses invalid image_url parts in OpenClaw's words, valid ones as unsupported", () => {
    for (const url of ["", "http://127.0.0.1:1/x.png", "data:image/png,abc", 5]) {
      expect(refusal(() => chatTurn(chatWithImage(url)))).toEqual({
        status: 400,
        message: "Invalid image_url content in `messages`.",
      });
    }
    expect(refusal(() => chatTurn(chatWithImage("data:image/png;base64,iVBORw0KGgo=")))?.message).toBe(
      "Images and files are not supported by this gateway yet.",
    );
  });

  it("puts a base64 text file into the system prompt inside untrusted-content markers; refuses remote sources", () => {
    const input = responsesRequestSchema.parse({
      model: "openclaw",
      input: [
        {
          type: "message",
          role: "user",
          content: [
            { type: "input_text", text: "read the file" },
            {
              type: "input_file",
              source: { type: "base64", media_type: "text/plain", data: "ZmlsZSBib2R5IGhlcmU=", filename: "a.txt" },
            },
          ],
        },
      ],
    }).input;
    const turn = responsesTurn(input, "Be brief.");
    expect(turn.message).toBe("read the file");
    expect(turn.extraSystemPrompt).toMatch(
      /^Be brief\.\n\n<file name="a\.txt">\n\n<<<EXTERNAL_UNTRUSTED_CONTENT id="([0-9a-f]{16})">>>\nSource: External\n---\nfile body here\n<<<END_EXTERNAL_UNTRUSTED_CONTENT id="\1">>>\n<\/file>$/,
    );
    const remote = responsesRequestSchema.parse({
      model: "openclaw",
      input: [
        {
          type: "message",
          role: "user",
          content: [{ type: "input_image", source: { type: "url", url: "http://127.0.0.1:1/x.png" } }],
        },
      ],
    }).input;
    expect(refusal(() => responsesTurn(remote))).toEqual({ status: 400, message: "invalid request" });
  });
});

describe("a model provider's refusal (SPEC §3.10)", () => {
  const failed = (error: string) => runFailure({ runId: "r", status: "error", state: "error", error });
  const body = (status: number) => `{"error":{"message":"mock failure ${status}","type":"server_error"}}`;

  it("answers the provider's status as OpenClaw maps it, and keeps other failures' own text", () => {
    const answer = (error: OpenAiError) => ({ status: error.status, type: error.type, message: error.message });
    expect(answer(failed(upstreamFailureText(400, body(400))))).toEqual({
      status: 400,
      type: "invalid_request_error",
      message: "400 mock failure 400",
    });
    expect(answer(failed(upstreamFailureText(401, body(401))))).toMatchObject({
      status: 401,
      type: "authentication_error",
    });
    expect(answer(failed(upstreamFailureText(429, body(429))))).toMatchObject({
      status: 429,
      type: "rate_limit_error",
    });
    expect(answer(failed(upstreamFailureText(503, body(503))))).toEqual({
      status: 502,
      type: "api_error",
      message: "upstream provider error",
    });
    expect(answer(failed("secret not found: store:openai"))).toEqual({
      status: 500,
      type: "api_error",
      message: "secret not found: store:openai",
    });
  });
});
