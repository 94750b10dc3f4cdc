// Acceptance test: the Responses API paths of the most used agent frameworks, with their real npm
// clients, against one `wrangler dev`: the AI SDK (`@ai-sdk/openai` `.responses()`), LangChain
// (`ChatOpenAI({ useResponsesApi: true })`) and the OpenAI Agents SDK (its default Responses
// model). The agent's runner is the scripted tool-calling mock (CALL <name> <json>), so a client
// tool is called by the model, run by the framework and answered in a second request.
// Run with `node --test test/e2e/openai-frameworks.e2e.mjs`.
import assert from "node:assert/strict";
import { dirname, resolve } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { createOpenAI } from "@ai-sdk/openai";
import { HumanMessage, ToolMessage } from "@langchain/core/messages";
import { ChatOpenAI } from "@langchain/openai";
import { Agent, tool as agentTool, OpenAIProvider, Runner } from "@openai/agents";
import { tool as aiTool, generateText, stepCountIs, streamText } from "ai";
import { z } from "zod";
import { killAllServersNow, startServer } from "../../bench/lib/server.mjs";
import { startToolMockModel } from "../peers/tool-mock-model.mjs";
import { httpJson } from "./http-json.mjs";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const TOKEN = "dev-operator-token";
const TEST_MS = 60_000;

process.once("exit", killAllServersNow);
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    killAllServersNow();
    process.exit(130);
  });
}

let server;
let toolModel;

const weatherCall = (city) => `CALL get_weather {"city":"${city}"}`;
const weatherOf = (city) => `Sunny in ${city}, 21C`;

/** The mock model's requests whose body contains the text (what the service sent the model). */
const modelRequests = (text) => toolModel.requests.filter((r) => JSON.stringify(r.body).includes(text));

before(async () => {
  toolModel = await startToolMockModel();
  server = await startServer({ cwd: REPO_ROOT, runtime: process.env.E2E_RUNTIME ?? "wrangler" });
  const runner = { type: "openai", baseUrl: toolModel.url, model: "mock" };
  const config = await httpJson(server.baseUrl, "PUT", "/v1/config", {
    authorization: `Bearer ${TOKEN}`,
    body: { agents: { list: [{ id: "main", default: true, runner }] } },
    timeoutMs: 15_000,
  });
  assert.equal(config.status, 200, config.text);
});

after(async () => {
  await server?.stop();
  await toolModel?.close();
});

describe("the AI SDK's Responses model (@ai-sdk/openai .responses())", { timeout: TEST_MS * 4 }, () => {
  const model = () => createOpenAI({ apiKey: TOKEN, baseURL: `${server.baseUrl}/v1` }).responses("openclaw");
  const weatherTool = (seen) =>
    aiTool({
      description: "The weather of a city",
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }) => {
        seen.push(city);
        return weatherOf(city);
      },
    });

  test("generateText: role-only input items are read; the answer parses", { timeout: TEST_MS }, async () => {
    const result = await generateText({
      model: model(),
      maxRetries: 0,
      system: "Be brief.",
      prompt: "hello from the ai sdk",
    });
    assert.equal(result.text, "ECHO: hello from the ai sdk");
    assert.equal(result.finishReason, "stop");
    assert.ok(result.usage.inputTokens > 0);
  });

  test("streamText: the text streams", { timeout: TEST_MS }, async () => {
    const result = streamText({ model: model(), maxRetries: 0, prompt: "streamed for the ai sdk" });
    let text = "";
    for await (const delta of result.textStream) text += delta;
    assert.equal(text, "ECHO: streamed for the ai sdk");
    assert.equal(await result.finishReason, "stop");
  });

  test("generateText with a tool: the call, the SDK's result, the final answer", { timeout: TEST_MS }, async () => {
    const seen = [];
    const result = await generateText({
      model: model(),
      maxRetries: 0,
      prompt: weatherCall("Paris"),
      tools: { get_weather: weatherTool(seen) },
      stopWhen: stepCountIs(3),
    });
    assert.deepEqual(seen, ["Paris"]);
    assert.equal(result.steps.length, 2);
    assert.equal(result.steps[0].finishReason, "tool-calls");
    assert.match(result.text, /^ECHO: Tool:\S+: Sunny in Paris, 21C$/);
    assert.ok(modelRequests(weatherOf("Paris")).length > 0, "the tool result reached the model");
  });

  test("streamText with a tool: the call streams, the SDK answers it", { timeout: TEST_MS }, async () => {
    const seen = [];
    const result = streamText({
      model: model(),
      maxRetries: 0,
      prompt: weatherCall("Oslo"),
      tools: { get_weather: weatherTool(seen) },
      stopWhen: stepCountIs(3),
    });
    let text = "";
    for await (const delta of result.textStream) text += delta;
    assert.deepEqual(seen, ["Oslo"]);
    assert.equal((await result.steps).length, 2);
    assert.match(text, /^ECHO: Tool:\S+: Sunny in Oslo, 21C$/);
  });
});

describe("LangChain's ChatOpenAI with useResponsesApi", { timeout: TEST_MS * 2 }, () => {
  const chat = () =>
    new ChatOpenAI({
      model: "openclaw",
      apiKey: TOKEN,
      configuration: { baseURL: `${server.baseUrl}/v1` },
      useResponsesApi: true,
      maxRetries: 0,
    });

  test("invoke: the answer parses as an AIMessage", { timeout: TEST_MS }, async () => {
    const message = await chat().invoke([
      ["system", "Be brief."],
      ["human", "hello from langchain"],
    ]);
    assert.equal(message.text, "ECHO: hello from langchain");
    assert.ok(message.usage_metadata.total_tokens > 0);
  });

  test("stream: the chunks join to the answer", { timeout: TEST_MS }, async () => {
    let text = "";
    for await (const chunk of await chat().stream("streamed for langchain")) text += chunk.text;
    assert.equal(text, "ECHO: streamed for langchain");
  });

  test("bindTools: the call, a ToolMessage back, the final answer", { timeout: TEST_MS }, async () => {
    const weather = {
      type: "function",
      function: {
        name: "get_weather",
        description: "The weather of a city",
        parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      },
    };
    const model = chat().bindTools([weather], { parallel_tool_calls: false });
    const question = new HumanMessage(weatherCall("Lima"));
    const first = await model.invoke([question]);
    assert.equal(first.tool_calls.length, 1);
    const [call] = first.tool_calls;
    assert.deepEqual([call.name, call.args], ["get_weather", { city: "Lima" }]);
    const answer = new ToolMessage({ tool_call_id: call.id, content: weatherOf("Lima") });
    const final = await model.invoke([question, first, answer]);
    assert.match(final.text, /^ECHO: Tool:\S+: Sunny in Lima, 21C$/);
  });
});

describe("the OpenAI Agents SDK's default (Responses) model", { timeout: TEST_MS * 2 }, () => {
  const runner = () =>
    new Runner({
      modelProvider: new OpenAIProvider({ apiKey: TOKEN, baseURL: `${server.baseUrl}/v1`, useResponses: true }),
      tracingDisabled: true,
    });

  test("run with a tool: the agent calls it, sends the output back and finishes", { timeout: TEST_MS }, async () => {
    const seen = [];
    const agent = new Agent({
      name: "weather",
      instructions: "Answer with the weather.",
      model: "openclaw",
      tools: [
        agentTool({
          name: "get_weather",
          description: "The weather of a city",
          parameters: z.object({ city: z.string() }),
          execute: async ({ city }) => {
            seen.push(city);
            return weatherOf(city);
          },
        }),
      ],
    });
    const result = await runner().run(agent, weatherCall("Rome"));
    assert.deepEqual(seen, ["Rome"]);
    assert.match(result.finalOutput, /^ECHO: Tool:\S+: Sunny in Rome, 21C$/);
  });

  test("run streamed without tools: the text streams", { timeout: TEST_MS }, async () => {
    const agent = new Agent({ name: "echo", instructions: "Be brief.", model: "openclaw" });
    const result = await runner().run(agent, "streamed for the agents sdk", { stream: true });
    let text = "";
    for await (const delta of result.toTextStream()) text += delta;
    await result.completed;
    assert.equal(text, "ECHO: streamed for the agents sdk");
    assert.equal(result.finalOutput, "ECHO: streamed for the agents sdk");
  });
});
