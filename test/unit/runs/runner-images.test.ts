import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunInput } from "../../../src/model/run-types";
import type { OutboundPolicy } from "../../../src/policy/outbound-url";
import type { RunnerConfig } from "../../../src/protocol/config";
import { anthropicRunner } from "../../../src/runs/runners/anthropic";
import { openaiRunner } from "../../../src/runs/runners/openai";
import type { ContextMessage, RunnerRequest } from "../../../src/runs/runners/runner";

/**
 * A chat message's image as each model API takes it (issue 46 item 2): OpenAI Chat Completions
 * an `image_url` data URL after the text, Anthropic a base64 `image` block before it; read from
 * the bucket (`readAttachment`) when the runner calls. A model server on 127.0.0.1 keeps the bodies.
 */

const PNG = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10, 1, 2, 3]);
const bodies: Array<{ path: string; body: any }> = [];
let server: Server;
let base = "";

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = "";
    req.on("data", (chunk) => {
      raw += String(chunk);
    });
    req.on("end", () => {
      bodies.push({ path: req.url ?? "", body: JSON.parse(raw) });
      res.writeHead(200, { "content-type": "text/event-stream" });
      if (req.url?.endsWith("/messages")) {
        for (const event of [
          { type: "message_start", message: { id: "msg_1", usage: { input_tokens: 1, output_tokens: 0 } } },
          { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
          { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "seen" } },
          { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 1 } },
          { type: "message_stop" },
        ])
          res.write(`data: ${JSON.stringify(event)}\n\n`);
        return res.end();
      }
      res.write(`data: ${JSON.stringify({ choices: [{ delta: { content: "seen" }, finish_reason: "stop" }] })}\n\n`);
      res.end("data: [DONE]\n\n");
    });
  });
  await new Promise<void>((resolve) => {
    server.listen(0, "127.0.0.1", resolve);
  });
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function request(config: RunnerConfig, context: ContextMessage[]): RunnerRequest {
  return {
    runId: "r1",
    tenantId: "t1",
    sessionKey: "agent:main:main",
    agentId: "main",
    input: { message: "what is this", origin: "agent" } as RunInput,
    config,
    context,
    deadline: Date.now() + 10_000,
    signal: new AbortController().signal,
    onText: () => undefined,
    deploymentKey: async () => ({ granted: false, hosts: [], value: undefined }),
    credentials: new Set(),
    storeSecret: async () => null,
    readAttachment: async (key) => (key === "t1/agent:main:main/media/inbound/x.png" ? PNG : null),
    outbound: { allowLoopback: true, allowedHosts: [], ownOrigins: [] } satisfies OutboundPolicy,
  };
}

const context: ContextMessage[] = [
  { role: "user", content: "earlier" },
  { role: "assistant", content: "ok" },
  {
    role: "user",
    content: "[media attached: media/inbound/x.png (image/png)]\nwhat is this",
    images: [
      { key: "t1/agent:main:main/media/inbound/x.png", mimeType: "image/png" },
      { key: "gone", mimeType: "image/png" },
    ],
  },
];
const base64 = Buffer.from(PNG).toString("base64");

describe("a chat message's image given to the model", () => {
  it("OpenAI: the text part, then an image_url data URL (an image gone from the bucket is left out)", async () => {
    await openaiRunner(request({ type: "openai", baseUrl: base, model: "m" } as RunnerConfig, context));
    const sent = bodies.find((b) => b.path.endsWith("/chat/completions"))!.body;
    expect(sent.messages.at(-1)).toEqual({
      role: "user",
      content: [
        { type: "text", text: "[media attached: media/inbound/x.png (image/png)]\nwhat is this" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${base64}` } },
      ],
    });
    expect(sent.messages[0]).toEqual({ role: "user", content: "earlier" });
  });

  it("Anthropic: a base64 image block, then the text", async () => {
    await anthropicRunner(request({ type: "anthropic", baseUrl: base, model: "m" } as RunnerConfig, context));
    const sent = bodies.find((b) => b.path.endsWith("/messages"))!.body;
    expect(sent.messages.at(-1)).toEqual({
      role: "user",
      content: [
        { type: "image", source: { type: "base64", media_type: "image/png", data: base64 } },
        { type: "text", text: "[media attached: media/inbound/x.png (image/png)]\nwhat is this" },
      ],
    });
  });
});
