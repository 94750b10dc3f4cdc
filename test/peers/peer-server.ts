import { createHmac } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { Validator } from "@seriousme/openapi-schema-validator";
import { PEER_PDF_TEXT, PEER_PNG_BASE64 } from "./peer-files";
import { rateLimitPeer } from "./rate-limit-peer";

/** How long the peer keeps an idle keep-alive connection open (ms). */
const PEER_KEEP_ALIVE_MS = 120_000;

/**
 * Real peers for tests, on 127.0.0.1: an OpenAI-compatible model and webhook agent hosts.
 * Behaviour is chosen by the model name or the webhook path so each test picks its case.
 */

type Recorded = {
  path: string;
  body: any;
  signature: string | undefined;
  validSignature: boolean | null;
  /** When the peer received it (its own clock): Telegram sends, for the pacing test. */
  at?: number;
};

export type Peers = { port: number; close(): Promise<void> };

export async function startPeers(): Promise<Peers> {
  const recorded: Recorded[] = [];
  let webhookSecret: string | undefined;
  const failuresLeft = new Map<string, number>();
  const scripts = new Map<string, Script>();
  const gauges = new Map<string, Gauge>();
  /** Bot API calls held until released, by `<method>:<chat_id>` (`/control/hold`, `/control/release`). */
  const holds = new Map<string, { released: Promise<void>; release(): void }>();

  const server: Server = createServer(async (req, res) => {
    const body = await readBody(req);
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    try {
      // The platforms' send APIs refusing a first send with their rate limit (rate-limit-peer.ts).
      if (rateLimitPeer(req, url, body, res)) return;
      if (url.pathname === "/v1/chat/completions") {
        const request = JSON.parse(body || "{}");
        // A `record:<name>` model keeps what it was sent (`/control/recorded?path=/model/<name>`), answers as echo.
        if (typeof request.model === "string" && request.model.startsWith("record:")) {
          recorded.push({
            path: `/model/${request.model.slice(7)}`,
            body: request,
            signature: undefined,
            validSignature: null,
          });
          return await chatCompletions({ ...request, model: "echo" }, res, scripts, req.headers.authorization);
        }
        const gauge = typeof request.model === "string" && /^gauge:/.test(request.model) ? request.model : null;
        if (!gauge) return await chatCompletions(request, res, scripts, req.headers.authorization);
        return await gauged(gauges, gauge, () =>
          chatCompletions({ ...request, model: "echo" }, res, scripts, req.headers.authorization),
        );
      }
      // Calls at once of a `gauge:<name>` model: the peak, now, and how many ended.
      if (url.pathname === "/control/gauge")
        return json(res, 200, gauges.get(`gauge:${url.searchParams.get("name")}`) ?? { peak: 0, now: 0, calls: 0 });
      if (url.pathname === "/control/script") {
        const script = JSON.parse(body) as Script & { scenario: string };
        scripts.set(script.scenario, script);
        return json(res, 200, { ok: true });
      }
      if (url.pathname === "/control/secret") {
        webhookSecret = JSON.parse(body).secret;
        return json(res, 200, { ok: true });
      }
      if (url.pathname === "/control/recorded")
        return json(
          res,
          200,
          recorded.filter((r) => r.path.includes(url.searchParams.get("path") ?? "")),
        );
      // Validates an OpenAPI document against the official 3.x JSON schemas (ajv needs Node, not workerd).
      if (url.pathname === "/control/validate-openapi") {
        const result = await new Validator().validate(JSON.parse(body));
        return json(res, 200, { valid: result.valid, errors: result.errors ?? null });
      }
      // A Telegram call for one chat held until released (a typing call that hangs: the inbox lanes' test).
      if (url.pathname === "/control/hold" || url.pathname === "/control/release") {
        const { method, chatId } = JSON.parse(body);
        const key = `${method}:${chatId}`;
        holds.get(key)?.release();
        holds.delete(key);
        if (url.pathname === "/control/hold") {
          let release = () => {};
          const released = new Promise<void>((resolve) => (release = resolve));
          holds.set(key, { released, release });
        }
        return json(res, 200, { ok: true });
      }
      if (url.pathname === "/control/fail") {
        const { path, times } = JSON.parse(body);
        failuresLeft.set(path, times);
        return json(res, 200, { ok: true });
      }
      // A Slack Web API that knows one app in "Fake Team" and accepts every call (as fake-slack.mjs answers).
      if (url.pathname.startsWith("/slack/api/")) {
        const method = url.pathname.slice("/slack/api/".length);
        const form = Object.fromEntries(new URLSearchParams(body));
        if (method === "auth.test")
          return json(res, 200, { ok: true, team: "Fake Team", team_id: "T0TEST", user_id: "U0BOT", bot_id: "B0BOT" });
        if (method === "conversations.info")
          return json(res, 200, {
            ok: true,
            channel: { id: form.channel, name: `chan-${String(form.channel).toLowerCase()}` },
          });
        if (method === "users.info")
          return json(res, 200, {
            ok: true,
            user: {
              id: form.user,
              name: String(form.user).toLowerCase(),
              profile: { display_name: `disp${form.user}` },
            },
          });
        if (method === "conversations.open") return json(res, 200, { ok: true, channel: { id: `D${form.users}` } });
        // A file of the media tests: `url_private` on this peer (the bot token must come with its download).
        if (method === "files.info") {
          const id = String(form.file);
          // `elsewhere-…` files claim a URL on another origin than the apiRoot's (this peer as
          // `localhost`): the bot token must not go there.
          const port = String(req.headers.host).split(":")[1];
          // `slackhost-…` files are on Slack's own file host (a token bound elsewhere must not go there).
          const url_private = id.startsWith("elsewhere-")
            ? `http://localhost:${port}/slack/files/png-${id}`
            : id.startsWith("slackhost-")
              ? `https://files.slack.com/files-pri/T0TEST-${id}/pic.png`
              : `http://${req.headers.host}/slack/files/${id}`;
          return json(res, 200, { ok: true, file: { id, name: "pic.png", mimetype: "image/png", url_private } });
        }
        // The media tests read posts under this shorter path.
        if (method === "chat.postMessage")
          recorded.push({ path: "/slack/chat.postMessage", body: form, signature: undefined, validSignature: null });
        // Posts and reactions are recorded (`/control/recorded?path=/slack/api/chat.postMessage`) with their form.
        if (method === "chat.postMessage" || method === "reactions.add")
          recorded.push({ path: url.pathname, body: form, signature: undefined, validSignature: null });
        return json(res, 200, { ok: true, ts: `${Date.now() / 1000}` });
      }
      // A Bot API that knows one bot and accepts every send (tests that need Telegram only to answer).
      if (url.pathname.startsWith("/telegram/bot")) {
        const method = url.pathname.split("/").pop();
        if (method === "getMe")
          return json(res, 200, { ok: true, result: { id: 42, is_bot: true, username: "peer_bot" } });
        // Kept for the tests that check what was registered (the setup wizard's last step).
        if (method === "setWebhook")
          recorded.push({ path: url.pathname, body: JSON.parse(body), signature: undefined, validSignature: null });
        // Kept for the media tests (`/control/recorded?path=/telegram/<method>`), and the presses and
        // edits of the `/commands` pages.
        if (
          method === "getFile" ||
          method === "sendMessage" ||
          method === "deleteMessage" ||
          method === "answerCallbackQuery" ||
          method === "editMessageText"
        )
          recorded.push({
            path: `/telegram/${method}`,
            body: JSON.parse(body || "{}"),
            signature: undefined,
            validSignature: null,
            at: Date.now(),
          });
        // Telegram refuses a keyboard with a button's callback_data past 64 bytes (the whole message).
        if (method === "sendMessage" || method === "editMessageText") {
          const keyboard = JSON.parse(body || "{}").reply_markup?.inline_keyboard as
            | Array<Array<{ callback_data?: string }>>
            | undefined;
          const tooLong = keyboard?.flat().some((button) => Buffer.byteLength(button.callback_data ?? "") > 64);
          if (tooLong)
            return json(res, 400, { ok: false, error_code: 400, description: "Bad Request: BUTTON_DATA_INVALID" });
        }
        await holds.get(`${method}:${JSON.parse(body || "{}").chat_id}`)?.released;
        if (method === "getFile") {
          const fileId = String(JSON.parse(body || "{}").file_id ?? "");
          return json(res, 200, {
            ok: true,
            result: { file_id: fileId, file_unique_id: `u${fileId}`, file_path: `files/${fileId}` },
          });
        }
        return json(res, 200, { ok: true, result: { message_id: 1, date: 0, chat: { id: 0, type: "private" } } });
      }
      // WhatsApp's Graph API (`/whatsapp/v23.0`, token `EAAG-peer`): sends answered, a media id
      // answered with its URL on this peer, the file served (by its id, as Telegram's) with the token only.
      if (url.pathname.startsWith("/whatsapp/")) {
        recorded.push({
          path: url.pathname,
          body: body ? JSON.parse(body) : { authorization: req.headers.authorization ?? null },
          signature: undefined,
          validSignature: null,
        });
        if (req.headers.authorization !== "Bearer EAAG-peer") return json(res, 401, { error: { code: 190 } });
        if (url.pathname.startsWith("/whatsapp/media/")) return await telegramFile(url.pathname, res);
        const mediaId = /^\/whatsapp\/v[\d.]+\/([^/]+)$/.exec(url.pathname)?.[1];
        if (req.method === "GET" && mediaId)
          return json(res, 200, { id: mediaId, url: `http://${req.headers.host}/whatsapp/media/${mediaId}` });
        return json(res, 200, { messaging_product: "whatsapp", messages: [{ id: `wamid.PEER${Date.now()}` }] });
      }
      // LINE's Messaging API (`/line`, token `line-peer-token`): calls answered, a message's content
      // (`/line/v2/bot/message/<id>/content`) served by its id as Telegram's files, with the token only.
      if (url.pathname.startsWith("/line/")) {
        recorded.push({
          path: url.pathname,
          body: body ? JSON.parse(body) : { authorization: req.headers.authorization ?? null },
          signature: undefined,
          validSignature: null,
        });
        if (req.headers.authorization !== "Bearer line-peer-token")
          return json(res, 401, { message: "Authentication failed" });
        const content = /^\/line\/v2\/bot\/message\/([^/]+)\/content$/.exec(url.pathname)?.[1];
        if (content) return await telegramFile(`/line/${content}`, res);
        // Names as fake-line.mjs gives them (`User <last 4>`, `Member <last 4>`, `Group <last 4>`);
        // a lookup scripted to fail (`/control/fail` with its path) answers 500.
        const lookup = lineLookup(url.pathname);
        if (req.method === "GET" && lookup) {
          const left = failuresLeft.get(url.pathname) ?? 0;
          if (left > 0) {
            failuresLeft.set(url.pathname, left - 1);
            return json(res, 500, { message: "scripted failure" });
          }
          return json(res, 200, lookup);
        }
        return json(res, 200, { sentMessages: [{ id: `${Date.now()}`, quoteToken: "q" }] });
      }
      // Bot API file downloads (`/telegram/file/bot<token>/files/<file_id>`), the file chosen by its id.
      if (url.pathname.startsWith("/telegram/file/bot")) return await telegramFile(url.pathname, res);
      // Slack's url_private: only with a bot token (Slack answers a login page otherwise).
      if (url.pathname.startsWith("/slack/files/")) {
        recorded.push({
          path: url.pathname,
          body: { authorization: req.headers.authorization ?? null },
          signature: undefined,
          validSignature: null,
        });
        if (!/^Bearer xoxb-/.test(req.headers.authorization ?? "")) return json(res, 403, { error: "no token" });
        return await telegramFile(url.pathname, res);
      }
      if (url.pathname.startsWith("/webhook/") || url.pathname.startsWith("/delivery/")) {
        const signature = req.headers["x-openclaw-signature"] as string | undefined;
        const expected = webhookSecret
          ? `sha256=${createHmac("sha256", webhookSecret).update(body).digest("hex")}`
          : undefined;
        const parsed = body ? JSON.parse(body) : null;
        recorded.push({
          path: url.pathname,
          body: parsed,
          signature,
          validSignature: expected ? signature === expected : null,
        });
        const left = failuresLeft.get(url.pathname) ?? 0;
        if (left > 0) {
          failuresLeft.set(url.pathname, left - 1);
          return json(res, 500, { error: "scripted failure" });
        }
        // A slow receiver (`/delivery/slow-<ms>/…`) keeps an attempt in flight long enough to cut it off.
        const slowMs = Number(/^\/delivery\/slow-(\d+)/.exec(url.pathname)?.[1] ?? 0);
        if (slowMs > 0) await sleep(slowMs);
        return webhook(url.pathname, parsed, res);
      }
      // A Bot API proxy (or a self-hosted Bot API server) that echoes the path it was asked for,
      // `/bot<token>/<method>`, in its error description, and the token's secret half alone.
      if (url.pathname.startsWith("/echo-telegram/")) {
        const path = url.pathname.slice("/echo-telegram".length);
        const secret = /^\/bot[^:/]+:([^/]+)\//.exec(decodeURIComponent(path))?.[1] ?? "";
        return json(res, 404, { ok: false, error_code: 404, description: `Not Found: ${path} (secret ${secret})` });
      }
      // A Slack API proxy that echoes the Authorization header it was sent.
      if (url.pathname.startsWith("/echo-slack/"))
        return json(res, 200, { ok: false, error: `invalid_auth (${req.headers.authorization ?? "no header"})` });
      json(res, 404, { error: "no such peer route" });
    } catch (error) {
      json(res, 500, { error: String(error) });
    }
  });
  // Node closes a keep-alive connection idle for 5 s by default, racing workerd reusing it: on a
  // loaded machine runs of the 150-run burst (test/workerd/tenant/tenant-limits.test.ts) failed "Network connection
  // lost". A model API keeps its connections longer than its clients do.
  server.keepAliveTimeout = PEER_KEEP_ALIVE_MS;
  server.headersTimeout = PEER_KEEP_ALIVE_MS + 1_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const hold of holds.values()) hold.release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A scripted agent for the agent-to-agent flow: the reply depends on the step, read from the
 * system prompt the service sends (primary, ping-pong turn N, announce). "!error" answers 500.
 */
/**
 * A `gauge:<name>` model answers as `echo` after GAUGE_HOLD_MS (a `gauge:slow-…` one after
 * GAUGE_SLOW_HOLD_MS), counting the calls it has at once.
 */
type Gauge = { peak: number; now: number; calls: number };
const GAUGE_HOLD_MS = 150;
const GAUGE_SLOW_HOLD_MS = 1_000;

async function gauged(gauges: Map<string, Gauge>, name: string, answer: () => Promise<void>) {
  const gauge = gauges.get(name) ?? { peak: 0, now: 0, calls: 0 };
  gauges.set(name, gauge);
  gauge.now++;
  gauge.peak = Math.max(gauge.peak, gauge.now);
  try {
    await sleep(name.startsWith("gauge:slow-") ? GAUGE_SLOW_HOLD_MS : GAUGE_HOLD_MS);
    await answer();
  } finally {
    gauge.now--;
    gauge.calls++;
  }
}

type Script = { primary?: string; turns?: string[]; announce?: string; delayMs?: number };

function scriptedReply(script: Script | undefined, system: string, last: string): string {
  if (!script) return `ECHO: ${last}`;
  if (system.includes("Agent-to-agent announce step:")) return script.announce ?? "ANNOUNCE_SKIP";
  const turn = /Turn (\d+) of/.exec(system);
  if (turn) return script.turns?.[Number(turn[1]) - 1] ?? "REPLY_SKIP";
  return script.primary ?? `ECHO: ${last}`;
}

async function chatCompletions(
  request: { model?: string; messages?: Array<{ role: string; content: string }> },
  res: ServerResponse,
  scripts: Map<string, Script>,
  authorization: string | undefined,
) {
  const lastContent: unknown = [...(request.messages ?? [])].reverse().find((m) => m.role === "user")?.content ?? "";
  // A message with image parts: its text parts (the echo answers the text).
  const last = Array.isArray(lastContent)
    ? lastContent.map((part: { text?: string }) => part.text ?? "").join("")
    : String(lastContent);
  const model = request.model ?? "echo";
  if (model.startsWith("scripted:")) {
    const script = scripts.get(model.slice("scripted:".length));
    const system =
      request.messages
        ?.filter((m) => m.role === "system")
        .map((m) => m.content)
        .join("\n") ?? "";
    const reply = scriptedReply(script, system, last);
    if (script?.delayMs) await sleep(script.delayMs);
    if (reply === "!error") return json(res, 500, { error: { message: "scripted failure" } });
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(`data: ${JSON.stringify({ choices: [{ delta: { content: reply }, finish_reason: "stop" }] })}\n\n`);
    res.end("data: [DONE]\n\n");
    return;
  }
  if (model === "fail500") return json(res, 500, { error: { message: "model exploded" } });
  // A provider (or proxy) that prints the key it was given when refusing it: as sent, masked,
  // and base64 inside Basic auth (secrets must never echo: src/secrets/redact-credentials.ts).
  if (model === "echo-key-401") {
    const key = (authorization ?? "").replace(/^Bearer /, "");
    const basic = Buffer.from(`user:${key}`).toString("base64");
    return json(res, 401, {
      error: {
        message: `invalid key ${key} (${key.slice(0, 5)}…${key.slice(-4)}; Basic ${basic})`,
        type: "invalid_request_error",
      },
    });
  }
  // Answers with the Authorization header it got (proves which key a run sent).
  if (model === "auth-echo") {
    res.writeHead(200, { "content-type": "text/event-stream" });
    const content = `AUTH: ${authorization ?? "none"}`;
    res.write(`data: ${JSON.stringify({ choices: [{ delta: { content }, finish_reason: "stop" }] })}\n\n`);
    res.end("data: [DONE]\n\n");
    return;
  }
  if (model === "hang") return; // never answers; the run's timeout must end it
  res.writeHead(200, { "content-type": "text/event-stream" });
  if (model === "malformed") {
    res.end("data: {not json\n\n");
    return;
  }
  if (model === "truncated") {
    res.end(`data: ${JSON.stringify({ choices: [{ delta: { content: "half" } }] })}\n\n`);
    return;
  }
  const reply =
    model === "system-echo"
      ? `SYSTEM: ${request.messages?.find((m) => m.role === "system")?.content ?? ""}`
      : `ECHO: ${last}`;
  const pieces = reply.match(/.{1,4}/gs) ?? [];
  const delay = model === "slow" ? 400 : 5;
  for (const piece of pieces) {
    res.write(`data: ${JSON.stringify({ choices: [{ delta: { content: piece }, finish_reason: null }] })}\n\n`);
    await sleep(delay);
  }
  res.write(`data: ${JSON.stringify({ choices: [{ delta: {}, finish_reason: "stop" }] })}\n\n`);
  res.write(
    `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 11, completion_tokens: pieces.length, total_tokens: 11 + pieces.length } })}\n\n`,
  );
  res.end("data: [DONE]\n\n");
}

function webhook(path: string, body: any, res: ServerResponse) {
  if (path === "/webhook/sync")
    return json(res, 200, { reply: `HOOK: ${body?.input?.message ?? ""}`, usage: { input: 3, output: 4 } });
  if (path === "/webhook/async") return json(res, 202, { accepted: true });
  // A host that runs its own model and asks the service to run session tools: one call, then
  // an answer naming the result it got back.
  if (path === "/webhook/tools") {
    const context = (body?.context ?? []) as Array<{ role: string; content: string; toolName?: string }>;
    const result = context.findLast((m) => m.role === "tool");
    if (!result)
      return json(res, 200, {
        reply: "looking",
        toolCalls: [{ id: "hook-call-1", name: "agents_list", arguments: {} }],
        usage: { input: 5, output: 2 },
      });
    return json(res, 200, {
      reply: `HOOK saw ${result.toolName}: ${result.content.slice(0, 40)}`,
      usage: { input: 9, output: 3 },
    });
  }
  if (path === "/webhook/fail") return json(res, 503, { error: "host down" });
  // A host that refuses, printing what its URL carried (the signing secret, in the echo test).
  if (path.startsWith("/webhook/echo-path/"))
    return json(res, 401, { error: `refused ${decodeURIComponent(path.slice("/webhook/echo-path/".length))}` });
  if (path.startsWith("/delivery/")) return json(res, 200, { ok: true });
  return json(res, 404, { error: "no such webhook" });
}

const PEER_PNG = Buffer.from(PEER_PNG_BASE64, "base64");
const PEER_PDF = Buffer.from(PEER_PDF_TEXT);

/**
 * `png-*`: the PNG; `pdf-*`: the PDF; `bigpdf-<n>-*`: a PDF of n bytes (the PDF, padded);
 * `fail-*`: 404; `chunked-<n>-*`: n bytes without content-length; `slow-<ms>-*`: the PNG after ms.
 */
async function telegramFile(path: string, res: ServerResponse) {
  // (Slack's url_private downloads are served by the same rules.)
  const fileId = path.split("/").pop() ?? "";
  if (fileId.startsWith("png-")) {
    res.writeHead(200, { "content-type": "image/png", "content-length": PEER_PNG.length });
    return res.end(PEER_PNG);
  }
  if (fileId.startsWith("pdf-")) {
    res.writeHead(200, { "content-type": "application/pdf", "content-length": PEER_PDF.length });
    return res.end(PEER_PDF);
  }
  const bigPdf = /^bigpdf-(\d+)-/.exec(fileId);
  if (bigPdf) {
    const bytes = Buffer.alloc(Math.max(Number(bigPdf[1]), PEER_PDF.length), 0x20);
    PEER_PDF.copy(bytes);
    res.writeHead(200, { "content-type": "application/pdf", "content-length": bytes.length });
    return res.end(bytes);
  }
  const chunked = /^chunked-(\d+)-/.exec(fileId);
  if (chunked) {
    res.writeHead(200, { "content-type": "application/octet-stream" });
    const total = Number(chunked[1]);
    for (let sent = 0; sent < total; sent += 1024) {
      if (res.destroyed) return;
      res.write(Buffer.alloc(Math.min(1024, total - sent), 7));
      await sleep(1);
    }
    return res.end();
  }
  const slow = /^slow-(\d+)-/.exec(fileId);
  if (slow) {
    await sleep(Number(slow[1]));
    res.writeHead(200, { "content-type": "image/png", "content-length": PEER_PNG.length });
    return res.end(PEER_PNG);
  }
  return json(res, 404, { ok: false, error_code: 404, description: "Not Found" });
}

function json(res: ServerResponse, status: number, value: unknown) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let data = "";
    req.on("data", (chunk) => (data += chunk));
    req.on("end", () => resolve(data));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** LINE's profile, member profile and group summary answers, by path (`/line/v2/bot/…`). */
function lineLookup(path: string): Record<string, string> | null {
  const profile = /^\/line\/v2\/bot\/profile\/([^/]+)$/.exec(path);
  if (profile) return { userId: profile[1]!, displayName: `User ${profile[1]!.slice(-4)}` };
  const member = /^\/line\/v2\/bot\/(?:group|room)\/[^/]+\/member\/([^/]+)$/.exec(path);
  if (member) return { userId: member[1]!, displayName: `Member ${member[1]!.slice(-4)}` };
  const summary = /^\/line\/v2\/bot\/group\/([^/]+)\/summary$/.exec(path);
  if (summary) return { groupId: summary[1]!, groupName: `Group ${summary[1]!.slice(-4)}` };
  return null;
}
