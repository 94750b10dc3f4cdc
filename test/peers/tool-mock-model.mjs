// The scripted tool-calling mock model of shared/peer/tool-loop/scripts/mock-model.mjs (the one the
// real gateway was recorded against), as a module for the tests, speaking both OpenAI Chat
// Completions (`POST …/chat/completions`) and Anthropic Messages (`POST …/messages`).
//
// Directives are read from the latest user message with text:
//   CALL <name> <json>          one tool call;  `&&` joins calls into one answer (parallel)
//   step1 THEN step2 …          step k is answered after k tool rounds
//   SAY(<text>)                 text streamed before that step's calls
//   LOOP <name> <json>          call the tool forever
//   SLOW                        stream in small chunks with 250 ms gaps
//   HOLD(<ms>)                  wait this long before answering each step (crash tests)
//   FINAL(<text>)               final text instead of "DONE: <first 80 chars of each result>"
// In OpenClaw's marker block only the current message is read.
// Without directives: "ECHO: <first line>". Every request is kept (`requests`; over HTTP:
// `GET …/requests?contains=<text>`).
import http from "node:http";

function partText(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p === "string" ? p : (p.text ?? ""))).join("");
  return "";
}
function clean(text) {
  const line = String(text ?? "")
    .split("\n")
    .map((l) => l.trim())
    .find(Boolean);
  return (line ?? "").slice(0, 2000);
}
function readJson(s, i) {
  let depth = 0;
  let inStr = false;
  let esc = false;
  for (let j = i; j < s.length; j++) {
    const ch = s[j];
    if (inStr) {
      if (esc) esc = false;
      else if (ch === "\\") esc = true;
      else if (ch === '"') inStr = false;
      continue;
    }
    if (ch === '"') inStr = true;
    else if (ch === "{") depth++;
    else if (ch === "}") {
      depth--;
      if (depth === 0) return { text: s.slice(i, j + 1), end: j + 1 };
    }
  }
  return null;
}
function parseStep(s) {
  const calls = [];
  const re = /\b(CALL|LOOP)\s+([A-Za-z0-9_.-]+)\s*/g;
  let m = re.exec(s);
  while (m) {
    let args = "{}";
    const at = re.lastIndex;
    if (s[at] === "{") {
      const j = readJson(s, at);
      if (j) {
        args = j.text;
        re.lastIndex = j.end;
      }
    }
    calls.push({ kind: m[1], name: m[2], args });
    m = re.exec(s);
  }
  return { calls, say: /SAY\(([^)]*)\)/.exec(s)?.[1] ?? null };
}
function plan(text) {
  const steps = text.split(/\s+THEN\s+/).map(parseStep);
  return {
    steps: steps.filter((st) => st.calls.length),
    final: /FINAL\(([^)]*)\)/.exec(text)?.[1] ?? null,
    loop: steps.some((st) => st.calls.some((c) => c.kind === "LOOP")),
    slow: /\bSLOW\b/.test(text),
    holdMs: Number(/HOLD\((\d+)\)/.exec(text)?.[1] ?? 0),
  };
}

// OpenClaw's marker block (a conversation sent whole to its OpenAI door): a model answers its
// current message, so the directives of the earlier turns it quotes are not followed again.
const CURRENT_MARKER = "[Current message - respond to this]\n";
function currentMessage(text) {
  const at = text.lastIndexOf(CURRENT_MARKER);
  return at < 0 ? text : text.slice(at + CURRENT_MARKER.length);
}

/** The neutral view of a request: messages as {role, text, toolCalls?} in order. */
function decide(turns, counter) {
  let ui = -1;
  for (let i = turns.length - 1; i >= 0; i--) {
    if (turns[i].role === "user" && clean(turns[i].text)) {
      ui = i;
      break;
    }
  }
  const userText = ui >= 0 ? currentMessage(turns[ui].text) : "";
  const after = ui >= 0 ? turns.slice(ui + 1) : [];
  const rounds = after.filter((m) => m.role === "assistant" && m.toolCalls > 0).length;
  const p = plan(userText);
  if (p.steps.length > 0) {
    const step = p.loop ? p.steps[0] : rounds < p.steps.length ? p.steps[rounds] : null;
    if (step) {
      const calls = step.calls.map((c, k) => ({ id: `call_${counter}_${k}`, name: c.name, args: c.args }));
      return { kind: "tools", text: step.say ?? "", calls, slow: p.slow, holdMs: p.holdMs };
    }
    const lastRound = [];
    for (let i = after.length - 1; i >= 0 && after[i].role === "tool"; i--) lastRound.unshift(after[i]);
    const body = lastRound.map((m) => m.text.replace(/\s+/g, " ").slice(0, 80)).join(" | ");
    return { kind: "text", text: p.final ?? `DONE: ${body}`, slow: p.slow, holdMs: p.holdMs };
  }
  return { kind: "text", text: `ECHO: ${clean(userText)}`, slow: p.slow, holdMs: 0 };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
function chunks(text, slow) {
  if (!text) return [];
  if (!slow) {
    const half = Math.ceil(text.length / 2);
    return [text.slice(0, half), text.slice(half)].filter(Boolean);
  }
  const out = [];
  for (let i = 0; i < text.length; i += 6) out.push(text.slice(i, i + 6));
  return out;
}

function openaiTurns(body) {
  return (body.messages ?? []).map((m) => ({
    role: m.role,
    text: partText(m.content),
    toolCalls: Array.isArray(m.tool_calls) ? m.tool_calls.length : 0,
  }));
}
function anthropicTurns(body) {
  const turns = [];
  for (const m of body.messages ?? []) {
    const blocks = typeof m.content === "string" ? [{ type: "text", text: m.content }] : (m.content ?? []);
    const results = blocks.filter((b) => b.type === "tool_result");
    for (const r of results) turns.push({ role: "tool", text: partText(r.content), toolCalls: 0 });
    const text = blocks
      .filter((b) => b.type === "text")
      .map((b) => b.text)
      .join("");
    const uses = blocks.filter((b) => b.type === "tool_use").length;
    if (text || uses || results.length === 0) turns.push({ role: m.role, text, toolCalls: uses });
  }
  return turns;
}

export function startToolMockModel(port = 0) {
  const requests = [];
  let counter = 0;
  const server = http.createServer((req, res) => {
    // A caller that aborts (a run stopped mid-call) only ends its own request.
    handle(req, res).catch(() => res.destroy());
  });
  // workerd pools its connections and reuses an idle one; Node closes a keep-alive connection idle
  // for 5 s (plus a 1 s buffer on Node 24) by default, and a request workerd writes on it as it
  // closes fails "Network connection lost" before this server reads it (the race of
  // cloudflare/workers-sdk#14848). A model API keeps its connections longer than its clients do.
  server.keepAliveTimeout = 120_000;
  server.headersTimeout = 121_000;
  async function handle(req, res) {
    let raw = "";
    for await (const c of req) raw += c;
    const url = req.url.split("?")[0];
    let body = {};
    try {
      body = raw ? JSON.parse(raw) : {};
    } catch {}
    // `GET …/requests?contains=<text>`: the model requests so far whose body contains the text
    // (tests that run inside workerd cannot read `requests`, so they count model calls here).
    if (req.method === "GET" && url.endsWith("/requests")) {
      const needle = new URL(req.url, "http://mock").searchParams.get("contains") ?? "";
      const matched = requests.filter((r) => JSON.stringify(r.body).includes(needle));
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify({ requests: matched.map((r) => ({ n: r.n, api: r.api, reply: r.reply.kind })) }));
    }
    const n = ++counter;
    if (req.method === "POST" && url.endsWith("/chat/completions")) {
      const d = decide(openaiTurns(body), n);
      requests.push({ n, api: "openai", body, reply: d });
      if (d.holdMs) await sleep(d.holdMs);
      const id = `chatcmpl-mock-${n}`;
      res.writeHead(200, { "content-type": "text/event-stream" });
      const chunk = (delta, fin) => ({
        id,
        object: "chat.completion.chunk",
        model: body.model,
        choices: [{ index: 0, delta, finish_reason: fin ?? null }],
      });
      const send = async (o) => {
        res.write(`data: ${JSON.stringify(o)}\n\n`);
        if (d.slow) await sleep(250);
      };
      await send(chunk({ role: "assistant", content: "" }));
      for (const piece of chunks(d.text, d.slow)) await send(chunk({ content: piece }));
      if (d.kind === "tools") {
        for (let k = 0; k < d.calls.length; k++) {
          const c = d.calls[k];
          await send(
            chunk({
              tool_calls: [{ index: k, id: c.id, type: "function", function: { name: c.name, arguments: "" } }],
            }),
          );
          const h = Math.ceil(c.args.length / 2);
          await send(chunk({ tool_calls: [{ index: k, function: { arguments: c.args.slice(0, h) } }] }));
          await send(chunk({ tool_calls: [{ index: k, function: { arguments: c.args.slice(h) } }] }));
        }
      }
      await send(chunk({}, d.kind === "tools" ? "tool_calls" : "stop"));
      const usage = { prompt_tokens: 100 + n, completion_tokens: 7, total_tokens: 107 + n };
      res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", choices: [], usage })}\n\n`);
      res.write("data: [DONE]\n\n");
      return res.end();
    }
    if (req.method === "POST" && url.endsWith("/messages")) {
      const d = decide(anthropicTurns(body), n);
      requests.push({ n, api: "anthropic", body, headers: req.headers, reply: d });
      if (d.holdMs) await sleep(d.holdMs);
      res.writeHead(200, { "content-type": "text/event-stream" });
      const send = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
      send("message_start", {
        message: {
          id: `msg_mock_${n}`,
          type: "message",
          role: "assistant",
          content: [],
          usage: { input_tokens: 100 + n, output_tokens: 1 },
        },
      });
      let index = 0;
      if (d.text) {
        send("content_block_start", { index, content_block: { type: "text", text: "" } });
        for (const piece of chunks(d.text, d.slow))
          send("content_block_delta", { index, delta: { type: "text_delta", text: piece } });
        send("content_block_stop", { index });
        index++;
      }
      if (d.kind === "tools") {
        for (const c of d.calls) {
          send("content_block_start", {
            index,
            content_block: { type: "tool_use", id: `toolu_${c.id}`, name: c.name, input: {} },
          });
          const h = Math.ceil(c.args.length / 2);
          send("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: c.args.slice(0, h) } });
          send("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: c.args.slice(h) } });
          send("content_block_stop", { index });
          index++;
        }
      }
      send("message_delta", {
        delta: { stop_reason: d.kind === "tools" ? "tool_use" : "end_turn" },
        usage: { output_tokens: 7 },
      });
      send("message_stop", {});
      return res.end();
    }
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { message: `mock: not found ${url}` } }));
  }
  return new Promise((resolve) =>
    server.listen(port, "127.0.0.1", () =>
      resolve({
        port: server.address().port,
        url: `http://127.0.0.1:${server.address().port}/v1`,
        requests,
        close: () => new Promise((done) => server.close(done)),
      }),
    ),
  );
}

// `node test/peers/tool-mock-model.mjs [port]` runs it alone (the shared mock's CLI).
if (import.meta.url === `file://${process.argv[1]}`) {
  const mock = await startToolMockModel(Number(process.argv[2] ?? 0));
  process.stderr.write(`[tool-mock] listening on ${mock.url}\n`);
}
