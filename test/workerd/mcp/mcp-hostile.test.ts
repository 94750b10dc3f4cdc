import { exports } from "cloudflare:workers";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { freshTenant, type TestTenant, user } from "../support/helpers";

/**
 * Generated hostile requests to the MCP endpoint: malformed JSON-RPC, unknown methods and
 * tools, wrong argument types, batches, odd headers, broken bytes, huge bodies. The endpoint
 * answers JSON-RPC errors or 4xx, never 5xx, and nothing is written.
 */

const TOOL_NAMES = [
  "sessions_list",
  "sessions_history",
  "sessions_send",
  "sessions_spawn",
  "session_status",
  "agents_list",
  "sessions_wait",
];
const METHODS = [
  "initialize",
  "notifications/initialized",
  "ping",
  "tools/list",
  "tools/call",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "resources/subscribe",
  "prompts/list",
  "completion/complete",
  "logging/setLevel",
  "sampling/createMessage",
  "bogus/method",
  "",
  "__proto__",
];

const scalar = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom("main", "agent:main:main", "openclaw://session/main", "1e308", "-1", "NaN", ""),
);
const value = fc.oneof(
  scalar,
  fc.array(scalar, { maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 10 }), scalar, { maxKeys: 4 }),
);
const toolArgs = fc.oneof(
  value,
  fc.dictionary(
    fc.constantFrom(
      "sessionKey",
      "limit",
      "afterSeq",
      "timeoutSeconds",
      "includeTools",
      "kinds",
      "message",
      "task",
      "label",
      "model",
      "channel",
      "constructor",
    ),
    value,
    { maxKeys: 5 },
  ),
);
const id = fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.constant(null), fc.double(), fc.boolean());

const message = fc.oneof(
  fc.record(
    { jsonrpc: fc.constantFrom("2.0", "1.0", 2), id, method: fc.constantFrom(...METHODS), params: value },
    { requiredKeys: [] },
  ),
  fc.record({
    jsonrpc: fc.constant("2.0"),
    id: fc.integer(),
    method: fc.constant("tools/call"),
    params: fc.record(
      { name: fc.oneof(fc.constantFrom(...TOOL_NAMES), fc.string({ maxLength: 12 }), value), arguments: toolArgs },
      { requiredKeys: [] },
    ),
  }),
  fc.record({
    jsonrpc: fc.constant("2.0"),
    id: fc.integer(),
    method: fc.constant("resources/read"),
    params: fc.record({
      uri: fc.oneof(
        fc.string({ maxLength: 40 }),
        fc.constantFrom("openclaw://session/", "openclaw://session/%", "openclaw://session/main?beforeSeq=x"),
        fc.string({ maxLength: 20 }).map((s) => `openclaw://session/${s}`),
      ),
    }),
  }),
  fc.record({ jsonrpc: fc.constant("2.0"), id: fc.integer(), result: value }),
  fc.record({ jsonrpc: fc.constant("2.0"), id: fc.integer(), error: value }),
);

/** sessions_wait may legitimately wait 300 s: generated calls wait not at all. */
function noWaiting(m: Record<string, any>) {
  const args = m.params?.arguments;
  if (m.method === "tools/call" && typeof args === "object" && args !== null && !Array.isArray(args)) {
    args.timeoutSeconds = 0;
  }
  return m;
}

const body = fc.oneof(
  message.map((m) => JSON.stringify(noWaiting(m))),
  fc.array(message, { maxLength: 20 }).map((batch) => JSON.stringify(batch.map(noWaiting))),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 60 }),
  fc.constantFrom(
    "",
    "{",
    "[]",
    "[[]]",
    "null",
    '{"jsonrpc":"2.0"}',
    "\u0000",
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":null}',
  ),
);

const headers = fc.record(
  {
    "content-type": fc.constantFrom("application/json", "text/plain", "application/json; charset=utf-8", ""),
    accept: fc.constantFrom(
      "application/json, text/event-stream",
      "application/json",
      "text/event-stream",
      "text/html",
      "*/*",
    ),
    "mcp-protocol-version": fc.constantFrom(LATEST_PROTOCOL_VERSION, "2025-03-26", "1999-01-01", "garbage"),
    "mcp-session-id": fc.string({ maxLength: 10 }),
    "x-openclaw-session-key": fc.constantFrom("main", "agent:main:x", "agent::", " ", "a".repeat(600)),
  },
  { requiredKeys: ["content-type", "accept"] },
);

async function post(t: TestTenant, payload: BodyInit, extra: Record<string, string>, method = "POST") {
  const res = await exports.default.fetch(`http://svc.test${t.prefix}/mcp`, {
    method,
    headers: { authorization: `Bearer ${t.token}`, ...extra },
    ...(method === "GET" || method === "HEAD" ? {} : { body: payload }),
  });
  const text = await res.text();
  return { status: res.status, text, type: res.headers.get("content-type") ?? "" };
}

/** A JSON answer is a JSON-RPC message (or batch of them); an SSE answer carries them as data lines. */
function assertJsonRpc(res: { status: number; text: string; type: string }) {
  const docs = res.type.includes("text/event-stream")
    ? res.text
        .split("\n")
        .filter((line) => line.startsWith("data: ") && line.length > 6)
        .map((line) => JSON.parse(line.slice(6)))
    : res.text
      ? [JSON.parse(res.text)]
      : [];
  for (const doc of docs.flat()) {
    if (doc === null) continue; // a 202 for notifications answers `null`
    expect(doc.jsonrpc, res.text.slice(0, 300)).toBe("2.0");
    expect("result" in doc || "error" in doc, res.text.slice(0, 300)).toBe(true);
  }
}

async function sessionCount(t: TestTenant) {
  const res = await t.invoke("sessions_list", {});
  return res.data.result.details.count as number;
}

describe("MCP endpoint under hostile input", () => {
  it("answers a few hundred generated requests with JSON-RPC errors or 4xx, never 5xx, and writes nothing", async () => {
    const t = await freshTenant("mcp-fuzz");
    await t.config({ tools: { sessions: { visibility: "agent" } } });
    await t.append("main", user("keep"));
    const before = await sessionCount(t);
    await fc.assert(
      fc.asyncProperty(body, headers, async (payload, extra) => {
        const res = await post(t, payload, extra);
        expect(res.status, `${res.status} ${res.text.slice(0, 300)}`).toBeLessThan(500);
        if (res.type.includes("json") || res.type.includes("event-stream")) assertJsonRpc(res);
      }),
      { numRuns: 300 },
    );
    expect(await sessionCount(t)).toBe(before);
  });

  it("refuses other methods, non-UTF-8 bytes, huge bodies and oversized batches with clear 4xx", async () => {
    const t = await freshTenant("mcp-hostile");
    const json = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    for (const method of ["GET", "DELETE", "PUT", "PATCH"]) {
      const res = await post(t, "{}", json, method);
      expect(res.status, method).toBe(405);
      expect(JSON.parse(res.text).error.message).toContain("stateless");
    }
    const broken = await post(t, new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), json);
    expect(broken.status).toBe(400);
    expect(JSON.parse(broken.text).error.code).toBe(-32700);

    const huge = await post(
      t,
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { x: "a".repeat(3 * 1024 * 1024) } }),
      json,
    );
    expect(huge.status).toBe(413);
    expect(JSON.parse(huge.text).error.message).toContain("exceeds");

    const pings = (n: number) =>
      JSON.stringify(Array.from({ length: n }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "ping" })));
    const tooMany = await post(t, pings(17), json);
    expect(tooMany.status).toBe(400);
    expect(JSON.parse(tooMany.text).error.message).toContain("at most 16");
    const sixteen = await post(t, pings(16), json);
    expect(sixteen.status).toBe(200);
    expect(JSON.parse(sixteen.text)).toHaveLength(16);

    const twice = await post(
      t,
      JSON.stringify([
        { jsonrpc: "2.0", id: 1, method: "ping" },
        { jsonrpc: "2.0", id: 1, method: "tools/list" },
      ]),
      json,
    );
    expect(twice.status).toBe(400);
    expect(JSON.parse(twice.text).error.message).toContain("duplicate request id");

    const empty = await post(t, "[]", json);
    expect(empty.status).toBe(400);
    expect(JSON.parse(empty.text).error.code).toBe(-32600);

    const notRpc = await post(t, JSON.stringify({ hello: "world", id: 7 }), json);
    expect(notRpc.status).toBe(400);
    expect(JSON.parse(notRpc.text)).toMatchObject({ error: { code: -32600 }, id: 7 });

    const unknownMethod = await post(t, JSON.stringify({ jsonrpc: "2.0", id: 3, method: "prompts/list" }), json);
    expect(JSON.parse(unknownMethod.text)).toMatchObject({ error: { code: -32601 }, id: 3 });

    const version = await post(t, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }), {
      ...json,
      "mcp-protocol-version": "1999-01-01",
    });
    expect(version.status).toBe(400);
    expect(JSON.parse(version.text).error.message).toContain("Unsupported MCP-Protocol-Version");

    const plain = await post(t, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }), {
      "content-type": "text/plain",
      accept: "application/json",
    });
    expect(plain.status).toBe(415);
    const html = await post(t, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }), {
      "content-type": "application/json",
      accept: "text/html",
    });
    expect(html.status).toBe(406);
  });
});
