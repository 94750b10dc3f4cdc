import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { InboundMedia } from "../../../src/model/inbound-media";
import type { RunInput } from "../../../src/model/run-types";
import type { OutboundPolicy } from "../../../src/policy/outbound-url";
import type { RunnerConfig } from "../../../src/protocol/config";
import { runnerFacts } from "../../../src/protocol/runner-specs/runner-declarations";
import { anthropicRunner } from "../../../src/runs/runners/anthropic";
import {
  loadFiles,
  MODEL_IMAGE_MAX_BYTES,
  MODEL_PARTS_MAX_BYTES_PER_RUN,
  modelFiles,
} from "../../../src/runs/runners/media-parts";
import { openaiRunner } from "../../../src/runs/runners/openai";
import type { ContextMessage, RunnerRequest } from "../../../src/runs/runners/runner";

/**
 * A chat message's files as each model API takes them (issue 46): which files go as parts is a
 * fact of the runner's declaration (`modelParts`), bounded per run; OpenAI Chat Completions
 * gets an `image_url` / a PDF `file` data URL after the text, Anthropic `image` / `document`
 * blocks (a PDF as base64, plain text as a text source) before it; read from the bucket
 * (`readAttachment`) when the runner calls. A model server on 127.0.0.1 keeps the bodies.
 */

const PNG = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10, 1, 2, 3]);
const PDF = new TextEncoder().encode("%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n");
const NOTES = new TextEncoder().encode("meeting at 10:00, room 4");
const PREFIX = "t1/agent:main:main/media/inbound/";
const STORED: Record<string, Uint8Array> = {
  [`${PREFIX}x.png`]: PNG,
  [`${PREFIX}telegram-7-0.pdf`]: PDF,
  [`${PREFIX}notes.txt`]: NOTES,
  [`${PREFIX}latin1.txt`]: new Uint8Array([0x63, 0x61, 0x66, 0xe9]),
};
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

const openai = () => ({ type: "openai", baseUrl: base, model: "m" }) as RunnerConfig;
const anthropic = () => ({ type: "anthropic", baseUrl: base, model: "m" }) as RunnerConfig;
const webhook = { type: "webhook", url: "https://agent.example/run" } as RunnerConfig;

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
    readAttachment: async (key) => STORED[key] ?? null,
    outbound: { allowLoopback: true, allowedHosts: [], ownOrigins: [] } satisfies OutboundPolicy,
  };
}

const png: InboundMedia = { key: `${PREFIX}x.png`, kind: "image", mimeType: "image/png", bytes: PNG.length };
const pdf: InboundMedia = {
  key: `${PREFIX}telegram-7-0.pdf`,
  kind: "document",
  mimeType: "application/pdf",
  bytes: PDF.length,
  fileName: "report.pdf",
};
const notes: InboundMedia = {
  key: `${PREFIX}notes.txt`,
  kind: "document",
  mimeType: "text/plain; charset=utf-8",
  bytes: NOTES.length,
};
const TEXT = "[media attached: media/inbound/x.png (image/png)]\nwhat is this";

/** The run's own message with the files its runner's declaration takes, as the executor builds it. */
function context(config: RunnerConfig, media: InboundMedia[]): ContextMessage[] {
  const { files } = modelFiles(media, runnerFacts(config).modelParts);
  return [
    { role: "user", content: "earlier" },
    { role: "assistant", content: "ok" },
    { role: "user", content: TEXT, ...(files.length ? { files } : {}) },
  ];
}

const MIB = 1024 * 1024;
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");
const gone: InboundMedia = { ...png, key: "gone" };
const docx: InboundMedia = {
  key: `${PREFIX}memo.docx`,
  kind: "document",
  mimeType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  bytes: 9,
};

describe("which files a runner's model gets as parts (its declaration's modelParts)", () => {
  it("OpenAI: images and PDFs; Anthropic: images, PDFs and plain text; a webhook none; other types stay described", () => {
    const media = [png, pdf, notes, docx, { ...png, key: "k.svg", mimeType: "image/svg+xml" }];
    const parts = (config: RunnerConfig) => modelFiles(media, runnerFacts(config).modelParts).files.map((f) => f.key);
    expect(parts(openai())).toEqual([png.key, pdf.key]);
    expect(parts(anthropic())).toEqual([png.key, pdf.key, notes.key]);
    expect(parts(webhook)).toEqual([]);
    expect(modelFiles(media, runnerFacts(anthropic()).modelParts).files[2]).toEqual({
      key: notes.key,
      part: "document",
      mimeType: "text/plain",
      bytes: NOTES.length,
    });
  });

  it("bounded: an image past MODEL_IMAGE_MAX_BYTES and files past the run's bytes are described with the reason", () => {
    const big = MODEL_PARTS_MAX_BYTES_PER_RUN - 1024;
    const { files, notes: said } = modelFiles(
      [
        { ...png, bytes: MODEL_IMAGE_MAX_BYTES + MIB },
        { ...pdf, bytes: MODEL_PARTS_MAX_BYTES_PER_RUN + 2 * MIB },
        { ...pdf, key: `${PREFIX}a.pdf`, bytes: big },
        { ...pdf, key: `${PREFIX}b.pdf`, bytes: 2048 },
        { ...pdf, key: `${PREFIX}c.pdf`, bytes: 1024 },
      ],
      runnerFacts(openai()).modelParts,
    );
    expect(files.map((f) => f.key)).toEqual([`${PREFIX}a.pdf`, `${PREFIX}c.pdf`]);
    expect(said).toEqual([
      "[media not given to the model: media/inbound/x.png (6.0 MB) is over the 5.0 MB limit for an image]",
      "[media not given to the model: media/inbound/telegram-7-0.pdf (12 MB) is over the 10 MB limit for files sent with one message]",
      "[media not given to the model: media/inbound/b.pdf (2 KB) would pass the 10 MB limit for files sent with one message]",
    ]);
  });
});

describe("a chat message's files given to the model", () => {
  it("OpenAI: the text part, then an image_url and a PDF file part as data URLs (a file gone from the bucket is left out)", async () => {
    await openaiRunner(request(openai(), context(openai(), [png, gone, pdf, notes])));
    const sent = bodies.findLast((b) => b.path.endsWith("/chat/completions"))!.body;
    expect(sent.messages.at(-1)).toEqual({
      role: "user",
      content: [
        { type: "text", text: TEXT },
        { type: "image_url", image_url: { url: `data:image/png;base64,${b64(PNG)}` } },
        { type: "file", file: { filename: "report.pdf", file_data: `data:application/pdf;base64,${b64(PDF)}` } },
      ],
    });
    expect(sent.messages[0]).toEqual({ role: "user", content: "earlier" });
  });

  it("OpenAI: a PDF without a file name is named by its stored file", async () => {
    const { fileName: _, ...unnamed } = pdf;
    await openaiRunner(request(openai(), context(openai(), [unnamed])));
    const sent = bodies.findLast((b) => b.path.endsWith("/chat/completions"))!.body;
    expect(sent.messages.at(-1).content[1]).toEqual({
      type: "file",
      file: { filename: "telegram-7-0.pdf", file_data: `data:application/pdf;base64,${b64(PDF)}` },
    });
  });

  it("Anthropic: an image block, a base64 PDF document and a text document, then the text (text that is not UTF-8 left out)", async () => {
    const latin1: InboundMedia = { ...notes, key: `${PREFIX}latin1.txt`, mimeType: "text/plain", bytes: 4 };
    await anthropicRunner(request(anthropic(), context(anthropic(), [png, pdf, notes, latin1])));
    const sent = bodies.findLast((b) => b.path.endsWith("/messages"))!.body;
    expect(sent.messages.at(-1)).toEqual({
      role: "user",
      content: [
        { type: "image", source: { type: "base64", media_type: "image/png", data: b64(PNG) } },
        {
          type: "document",
          source: { type: "base64", media_type: "application/pdf", data: b64(PDF) },
          title: "report.pdf",
        },
        { type: "document", source: { type: "text", media_type: "text/plain", data: "meeting at 10:00, room 4" } },
        { type: "text", text: TEXT },
      ],
    });
  });
});

describe("a file's stored size is checked before its bytes are read", () => {
  it("each file is asked for with the bytes it may still take, so one overwritten with 100 MiB is never read", async () => {
    // The transcript says 11 and 60 bytes; an import overwrote the image's key with 100 MiB.
    const storedSize: Record<string, number> = { [png.key]: 100 * MIB, [pdf.key]: PDF.length };
    const asked: Array<[string, number | undefined]> = [];
    let bytesRead = 0;
    const reader = {
      // The bucket's contract: past `maxBytes` the body is not read (readAttachmentWithin).
      readAttachment: async (key: string, maxBytes?: number) => {
        asked.push([key, maxBytes]);
        const size = storedSize[key]!;
        if (size > (maxBytes ?? Number.POSITIVE_INFINITY)) return null;
        bytesRead += size;
        return key === pdf.key ? PDF : new Uint8Array(size);
      },
    };
    const loaded = await loadFiles(reader, context(openai(), [png, pdf]));
    expect([...loaded.keys()]).toEqual([pdf.key]);
    expect(asked).toEqual([
      [png.key, MODEL_IMAGE_MAX_BYTES],
      [pdf.key, MODEL_PARTS_MAX_BYTES_PER_RUN],
    ]);
    expect(bytesRead).toBe(PDF.length);
  });
});
