// OpenAI suite: the OpenAI-compatible door with the echo runner, sequential requests as a chat
// front end makes them. A non-streaming completion (new session each; same `user`, a growing
// session), time to the first SSE chunk (the role chunk, written before the run starts) and to
// the first content chunk, and a non-streaming response. With BENCH_OPENAI_PEER_URL (and
// BENCH_OPENAI_PEER_TOKEN) set, the same requests go to a real OpenClaw gateway too
// (../shared/peer/openai-http/scripts/start-peer-openai.sh); its recorded figures with the
// shared mock are 342 ms (non-stream p50) and 34 ms (first SSE bytes p50).
import { performance } from "node:perf_hooks";
import { summarize } from "../lib/measure.mjs";

export const description =
  "OpenAI door: chat completion p50 (new session, same user), time to first SSE chunk and first content, responses p50";

const TOKEN = "dev-operator-token";
const PEER_RECORDED = { nonStream: 342, firstChunk: 34 };

export async function run(ctx) {
  const { baseUrl, log, signal } = ctx;
  const reps = ctx.quick ? 10 : 100;
  const warmups = 3;
  const targets = [{ label: "", url: `${baseUrl}/v1`, token: TOKEN }];
  if (process.env.BENCH_OPENAI_PEER_URL) {
    targets.push({
      label: "peer ",
      url: `${process.env.BENCH_OPENAI_PEER_URL.replace(/\/+$/, "")}/v1`,
      token: process.env.BENCH_OPENAI_PEER_TOKEN ?? "",
    });
  }
  const rows = [];
  for (const target of targets) {
    log(`${target.label || "service "}: ${reps} requests per case`);
    const post = (path, body) =>
      fetch(`${target.url}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${target.token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
        signal: AbortSignal.any([signal, AbortSignal.timeout(60_000)]),
      });
    const timed = async (_label, task) => {
      const samples = { total: [], first: [], content: [] };
      for (let i = 0; i < warmups + reps; i++) {
        signal?.throwIfAborted();
        const t0 = performance.now();
        const marks = await task(i);
        if (i < warmups) continue;
        samples.total.push(performance.now() - t0);
        if (marks?.first !== undefined) samples.first.push(marks.first - t0);
        if (marks?.content !== undefined) samples.content.push(marks.content - t0);
      }
      return samples;
    };
    const json = async (path, body, check) => {
      const res = await post(path, body);
      const data = await res.json();
      if (res.status !== 200 || !check(data)) throw new Error(`${path} → ${res.status}: ${JSON.stringify(data)}`);
    };
    const chat = (i, extra = {}) => ({
      model: "openclaw",
      messages: [{ role: "user", content: `bench ${i}` }],
      ...extra,
    });

    const fresh = await timed("non-stream", (i) =>
      json("/chat/completions", chat(i), (d) => d.choices?.[0]?.message?.content?.includes(`bench ${i}`)),
    );
    const sameUser = await timed("same user", (i) =>
      json("/chat/completions", chat(i, { user: `bench-${Date.now() >> 20}` }), (d) => d.choices?.length === 1),
    );
    const streamed = await timed("stream", async (i) => {
      const res = await post("/chat/completions", chat(i, { stream: true }));
      if (res.status !== 200) throw new Error(`stream → ${res.status}: ${await res.text()}`);
      const marks = {};
      const decoder = new TextDecoder();
      let text = "";
      for await (const chunk of res.body) {
        marks.first ??= performance.now();
        text += decoder.decode(chunk, { stream: true });
        if (marks.content === undefined && text.includes('"content"')) marks.content = performance.now();
      }
      if (!text.endsWith("data: [DONE]\n\n")) throw new Error(`stream did not end with [DONE]: ${text.slice(-200)}`);
      return marks;
    });
    const responses = await timed("responses", (i) =>
      json("/responses", { model: "openclaw", input: `bench ${i}` }, (d) => d.status === "completed"),
    );

    const p = (samples) => summarize(samples);
    const add = (name, samples, note) => {
      const s = p(samples);
      rows.push({
        name: `${target.label}${name} p50`,
        value: s.p50,
        unit: "ms",
        note: `p90 ${s.p90.toFixed(1)} ms; ${note}`,
      });
    };
    const peerNote = (value) => (target.label ? "real gateway, measured now" : `real gateway recorded: ${value} ms`);
    add("chat non-stream, new session each", fresh.total, peerNote(PEER_RECORDED.nonStream));
    add("chat non-stream, same user", sameUser.total, "growing session");
    add("chat stream, first SSE chunk", streamed.first, peerNote(PEER_RECORDED.firstChunk));
    add("chat stream, first content chunk", streamed.content, "echo reply");
    add("chat stream, total", streamed.total, "until [DONE]");
    add("responses non-stream, new session each", responses.total, "real gateway recorded: 290 ms");
  }
  return rows;
}
