import { env } from "cloudflare:test";
import { describe, expect, inject, it } from "vitest";
import { slackSignature } from "../../../src/features/channels/slack/signature";
import { PEER_PDF_TEXT, PEER_PNG_BASE64 } from "../../peers/peer-files";
import { call, freshTenant, type TestTenant, until } from "../support/helpers";
import { peerTelegramChannel, postTelegramDm } from "../support/telegram-helpers";

/**
 * A Telegram message's files (issue 46 item 2): fetched with getFile + the file URL into the
 * ATTACHMENTS bucket before the run, referenced from the transcript, given to a model that takes
 * images as an `image_url` data URL; a failed download answers OpenClaw's warning and the turn
 * goes on as `[media unavailable: download failed]`; a file over the tenant's limit is not
 * downloaded and the chat is told. The webhook, inbox, session, runner and bucket are real; the
 * Bot API, its file server and the model are the test peer's (test/peers/peer-server.ts).
 */

const PEER_PNG = Uint8Array.from(atob(PEER_PNG_BASE64), (c) => c.charCodeAt(0));
const peer = `http://127.0.0.1:${inject("peerPort")}`;
const SECRET = "tg-webhook-secret-media-0123456";
let nextUpdateId = 940_000;

type Message = { role: string; content: unknown };
type ModelRequest = { body: { messages: Array<{ role: string; content: unknown }> } };

async function mediaTenant(
  label: string,
  limits: Record<string, number> = {},
  extra: Record<string, unknown> = {},
): Promise<TestTenant> {
  const t = await freshTenant(label);
  const put = await t.config({
    agents: {
      list: [{ id: "main", default: true, runner: { type: "openai", baseUrl: `${peer}/v1`, model: `record:${t.id}` } }],
    },
    channels: {
      telegram: peerTelegramChannel(SECRET),
    },
    ...(Object.keys(limits).length ? { limits } : {}),
    ...extra,
  });
  expect(put.status, put.text).toBe(200);
  return t;
}

/** Posts a DM with `media` from a sender of its own; returns its chat id and update id. */
async function postMedia(t: TestTenant, media: Record<string, unknown>) {
  const updateId = nextUpdateId++;
  const chatId = 600_000 + (updateId % 100_000);
  await postTelegramDm(t, SECRET, { updateId, chatId }, media);
  return { chatId, updateId };
}

async function answered(t: TestTenant, key = "agent:main:main"): Promise<Message[]> {
  return until(
    async () => {
      const res = await t.call(`/sessions/${encodeURIComponent(key)}/history`);
      return res.status === 200 ? (res.data.messages as Message[]) : [];
    },
    (messages) => messages.some((m) => m.role === "assistant"),
  );
}

async function recorded<T>(path: string): Promise<T[]> {
  return (await (await fetch(`${peer}/control/recorded?path=${encodeURIComponent(path)}`)).json()) as T[];
}

function photo(fileId: string, fileSize?: number) {
  return [
    { file_id: `thumb-${fileId}`, file_unique_id: "s", width: 90, height: 51, file_size: 1200 },
    { file_id: fileId, file_unique_id: "l", width: 1280, height: 720, ...(fileSize ? { file_size: fileSize } : {}) },
  ];
}

/** The sendMessage calls the peer's Bot API got for a chat. */
async function sentTo(chatId: number) {
  const sends = await recorded<{ body: Record<string, unknown> }>("/telegram/sendMessage");
  return sends.map((s) => s.body).filter((body) => String(body.chat_id) === String(chatId));
}

describe("Telegram media fetched into R2, the transcript and the model", () => {
  it("a photo DM: stored in the bucket, referenced in history, and the model gets it as an image_url part", async () => {
    // A DM session of its own (the main session cannot be deleted).
    const t = await mediaTenant("media-photo", {}, { session: { dmScope: "per-channel-peer" } });
    const fileId = `png-${crypto.randomUUID()}`;
    const { updateId, chatId } = await postMedia(t, { photo: photo(fileId, PEER_PNG.length), caption: "what is this" });
    const session = `agent:main:telegram:direct:${chatId}`;
    const history = await answered(t, session);

    const user = history.find((m) => m.role === "user")!;
    const blocks = user.content as Array<Record<string, unknown>>;
    expect(blocks[0]).toEqual({ type: "text", text: "[media: photo 1280×720 image/jpeg]\nwhat is this" });
    const key = `${t.id}/${session}/media/inbound/telegram-${updateId}-0.jpg`;
    expect(blocks[1]).toMatchObject({ type: "image", mimeType: "image/png", bytes: PEER_PNG.length, media: { key } });
    const object = await env.ATTACHMENTS.get(key);
    expect(new Uint8Array(await object!.arrayBuffer())).toEqual(PEER_PNG);

    const [request] = await until(
      () => recorded<ModelRequest>(`/model/${t.id}`),
      (list) => list.length >= 1,
    );
    const parts = request!.body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []));
    const text = parts.find((p: { type: string }) => p.type === "text") as { text: string };
    expect(text.text).toContain(`[media attached: media/inbound/telegram-${updateId}-0.jpg (image/png)]\nwhat is this`);
    expect(parts).toContainEqual({
      type: "image_url",
      image_url: { url: `data:image/png;base64,${PEER_PNG_BASE64}` },
    });
    // Fetched once: getFile for the largest size only.
    const gets = await recorded<{ body: { file_id: string } }>("/telegram/getFile");
    expect(gets.filter((g) => g.body.file_id.endsWith(fileId))).toHaveLength(1);

    // Deleting the session deletes its files.
    const deleted = await t.call(`/v1/sessions/${encodeURIComponent(session)}`, { method: "DELETE" });
    expect(deleted.status, deleted.text).toBe(200);
    expect(await env.ATTACHMENTS.head(key)).toBeNull();
  }, 60_000);

  it("a PDF document DM: stored, and the model gets it as a Chat Completions `file` part beside its line", async () => {
    const t = await mediaTenant("media-pdf");
    const fileId = `pdf-${crypto.randomUUID()}`;
    const pdfBytes = new TextEncoder().encode(PEER_PDF_TEXT);
    const document = {
      file_id: fileId,
      file_name: "report.pdf",
      mime_type: "application/pdf",
      file_size: pdfBytes.length,
    };
    const { updateId } = await postMedia(t, { document, caption: "summarize" });
    const history = await answered(t);
    const blocks = history.find((m) => m.role === "user")!.content as Array<Record<string, unknown>>;
    const key = `${t.id}/agent:main:main/media/inbound/telegram-${updateId}-0.pdf`;
    expect(blocks[1]).toMatchObject({
      type: "file",
      mimeType: "application/pdf",
      fileName: "report.pdf",
      media: { key },
    });

    const [request] = await until(
      () => recorded<ModelRequest>(`/model/${t.id}`),
      (list) => list.length >= 1,
    );
    // The parts go with the user's own message (its envelope), before the internal context.
    const user = request!.body.messages.find((m) => Array.isArray(m.content))!;
    const parts = user.content as Array<{ type: string; text?: string }>;
    expect(parts[0]!.text).toContain(
      `[media attached: media/inbound/telegram-${updateId}-0.pdf (application/pdf) "report.pdf"]\nsummarize`,
    );
    const base64 = btoa(String.fromCharCode(...pdfBytes));
    expect(parts.slice(1)).toEqual([
      { type: "file", file: { filename: "report.pdf", file_data: `data:application/pdf;base64,${base64}` } },
    ]);
  }, 60_000);

  it("a PDF past the bytes a run may send: stored, not sent; the model is told why beside its line", async () => {
    const t = await mediaTenant("media-pdf-big");
    // 1 MiB past MODEL_PARTS_MAX_BYTES_PER_RUN (10 MiB), well under the tenant's mediaBytesPerFile.
    const bytes = 11 * 1024 * 1024;
    const document = {
      file_id: `bigpdf-${bytes}-${crypto.randomUUID()}`,
      file_name: "scan.pdf",
      mime_type: "application/pdf",
    };
    const { updateId } = await postMedia(t, { document });
    await answered(t);
    const key = `${t.id}/agent:main:main/media/inbound/telegram-${updateId}-0.pdf`;
    expect((await env.ATTACHMENTS.head(key))?.size).toBe(bytes);

    const [request] = await until(
      () => recorded<ModelRequest>(`/model/${t.id}`),
      (list) => list.length >= 1,
    );
    const sent = JSON.stringify(request!.body.messages);
    expect(sent).not.toContain('"type":"file"');
    expect(request!.body.messages[0]!.content).toContain(
      `[media attached: media/inbound/telegram-${updateId}-0.pdf (application/pdf) "scan.pdf"]\n` +
        `[media not given to the model: media/inbound/telegram-${updateId}-0.pdf (11 MB) is over the 10 MB limit for files sent with one message]`,
    );
  }, 60_000);

  it("a failed download: OpenClaw's warning to the chat, then a turn saying the media is unavailable", async () => {
    const t = await mediaTenant("media-fail");
    const { chatId, updateId } = await postMedia(t, { photo: photo(`fail-${crypto.randomUUID()}`) });
    const history = await answered(t);
    expect(history.filter((m) => m.role === "user").map((m) => m.content)).toEqual([
      "[media unavailable: download failed]",
    ]);
    const sends = await until(
      () => sentTo(chatId),
      (list) => list.length >= 2,
    );
    // As OpenClaw sends it: plain text, a reply to the message.
    expect(sends).toContainEqual({
      chat_id: chatId,
      text: "⚠️ Failed to download media. Please try again.",
      reply_parameters: { message_id: updateId, allow_sending_without_reply: true },
    });
    expect(sends.some((s) => String(s.text).startsWith("ECHO:"))).toBe(true);
    const [request] = await recorded<ModelRequest>(`/model/${t.id}`);
    expect(JSON.stringify(request!.body.messages)).toContain("[media unavailable: download failed]");
  }, 60_000);

  it("a file over the tenant's mediaBytesPerFile: not downloaded, the chat is told, the turn says so", async () => {
    const t = await mediaTenant("media-big", { mediaBytesPerFile: 4096 });
    // Announced too large: refused before getFile.
    const bigId = `png-${crypto.randomUUID()}`;
    const { chatId } = await postMedia(t, { photo: photo(bigId, 20 * 1024 * 1024) });
    const history = await answered(t);
    expect(history.filter((m) => m.role === "user").map((m) => m.content)).toEqual([
      "[media unavailable: file too large]",
    ]);
    const sends = await until(
      () => sentTo(chatId),
      (list) => list.length >= 2,
    );
    expect(sends.map((s) => s.text)).toContain("⚠️ File too large (20 MB). The limit is 4 KB.");
    const gets = await recorded<{ body: { file_id: string } }>("/telegram/getFile");
    expect(gets.some((g) => g.body.file_id === bigId)).toBe(false);
  }, 60_000);

  it("past the tenant's mediaBytesPerTenant: refused with OpenClaw's warning, nothing stored; deleting a session frees its bytes", async () => {
    // Room for one photo and a half: the second photo does not fit, whatever its own size.
    const limit = Math.floor(PEER_PNG.length * 1.5);
    const t = await mediaTenant(
      "media-tenant-full",
      { mediaBytesPerTenant: limit },
      {
        session: { dmScope: "per-channel-peer" },
      },
    );
    const sessionOf = (chatId: number) => `agent:main:telegram:direct:${chatId}`;
    const first = await postMedia(t, { photo: photo(`png-${crypto.randomUUID()}`, PEER_PNG.length) });
    await answered(t, sessionOf(first.chatId));
    expect((await env.ATTACHMENTS.list({ prefix: `${t.id}/` })).objects.map((o) => o.size)).toEqual([PEER_PNG.length]);

    const second = await postMedia(t, { photo: photo(`png-${crypto.randomUUID()}`, PEER_PNG.length) });
    const history = await answered(t, sessionOf(second.chatId));
    expect(history.filter((m) => m.role === "user").map((m) => m.content)).toEqual([
      "[media unavailable: media storage full]",
    ]);
    const sends = await until(
      () => sentTo(second.chatId),
      (list) => list.length >= 2,
    );
    expect(sends).toContainEqual({
      chat_id: second.chatId,
      text: "⚠️ Failed to download media. Please try again.",
      reply_parameters: { message_id: second.updateId, allow_sending_without_reply: true },
    });
    expect((await env.ATTACHMENTS.list({ prefix: `${t.id}/${sessionOf(second.chatId)}/` })).objects).toEqual([]);

    // The first session's deletion deletes its file: the tenant's total goes down, a photo fits again.
    const deleted = await t.call(`/v1/sessions/${encodeURIComponent(sessionOf(first.chatId))}`, { method: "DELETE" });
    expect(deleted.status, deleted.text).toBe(200);
    const third = await postMedia(t, { photo: photo(`png-${crypto.randomUUID()}`, PEER_PNG.length) });
    const stored = await answered(t, sessionOf(third.chatId));
    const blocks = stored.find((m) => m.role === "user")!.content as Array<Record<string, unknown>>;
    expect(blocks[1]).toMatchObject({ type: "image", bytes: PEER_PNG.length });
  }, 90_000);

  it("a download past the limit without content-length is cut at the limit, nothing stored", async () => {
    const t = await mediaTenant("media-chunked", { mediaBytesPerFile: 4096 });
    const { chatId, updateId } = await postMedia(t, {
      document: { file_id: `chunked-65536-${crypto.randomUUID()}`, file_name: "big.bin" },
    });
    await answered(t);
    const sends = await until(
      () => sentTo(chatId),
      (list) => list.length >= 2,
    );
    expect(sends.map((s) => s.text)).toContain("⚠️ File too large. The limit is 4 KB.");
    const listed = await env.ATTACHMENTS.list({ prefix: `${t.id}/` });
    expect(listed.objects.map((o) => o.key)).not.toContain(
      `${t.id}/agent:main:main/media/inbound/telegram-${updateId}-0.bin`,
    );
  }, 60_000);
});

describe("Slack file_share fetched into R2 and given to the model", () => {
  const SLACK_SECRET = "slack-signing-secret-media-0123";

  async function slackMediaTenant(): Promise<TestTenant> {
    const t = await freshTenant("media-slack");
    const put = await t.config({
      agents: {
        list: [
          { id: "main", default: true, runner: { type: "openai", baseUrl: `${peer}/v1`, model: `record:${t.id}` } },
        ],
      },
      channels: {
        slack: {
          enabled: true,
          mode: "http",
          botToken: "xoxb-media-fake",
          signingSecret: SLACK_SECRET,
          apiRoot: `${peer}/slack/api/`,
          dmPolicy: "open",
        },
      },
    });
    expect(put.status, put.text).toBe(200);
    return t;
  }

  async function shareFile(t: TestTenant, fileId: string) {
    const event = {
      type: "message",
      subtype: "file_share",
      channel: "D0MEDIA",
      channel_type: "im",
      user: "U0ALICE",
      text: "look",
      ts: "1795911800.000100",
      files: [{ id: fileId, name: "pic.png", mimetype: "image/png", size: PEER_PNG.length }],
    };
    const body = JSON.stringify({ type: "event_callback", team_id: "T0TEST", event_id: `Ev${fileId}`, event });
    const at = String(Math.floor(Date.now() / 1000));
    const posted = await call(`${t.prefix}/slack/events`, {
      method: "POST",
      token: null,
      headers: {
        "content-type": "application/json",
        "x-slack-request-timestamp": at,
        "x-slack-signature": await slackSignature(SLACK_SECRET, at, body),
      },
      body,
    });
    expect(posted.status, posted.text).toBe(200);
  }

  it("files.info + url_private with the bot token: the model gets the image, the history references it", async () => {
    const t = await slackMediaTenant();
    await shareFile(t, `png-${crypto.randomUUID()}`);
    const history = await answered(t);
    const blocks = history.find((m) => m.role === "user")!.content as Array<Record<string, unknown>>;
    expect(blocks[1]).toMatchObject({
      type: "image",
      mimeType: "image/png",
      bytes: PEER_PNG.length,
      fileName: "pic.png",
    });
    const [request] = await until(
      () => recorded<ModelRequest>(`/model/${t.id}`),
      (list) => list.length >= 1,
    );
    const parts = request!.body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []));
    expect(parts).toContainEqual({
      type: "image_url",
      image_url: { url: `data:image/png;base64,${PEER_PNG_BASE64}` },
    });
  }, 60_000);

  it("a url_private off Slack's hosts is not fetched with the bot token: the warning, then the turn goes on", async () => {
    const t = await slackMediaTenant();
    const fileId = `elsewhere-${crypto.randomUUID()}`;
    await shareFile(t, fileId);
    const history = await answered(t);
    expect(history.filter((m) => m.role === "user").map((m) => m.content)).toEqual([
      "[media unavailable: download failed]\nlook",
    ]);
    const posts = await until(
      () => recorded<{ body: Record<string, string> }>("/slack/chat.postMessage"),
      (list) => list.some((p) => p.body.text === "⚠️ Failed to download media. Please try again."),
    );
    expect(posts.length).toBeGreaterThan(0);
    expect(await recorded(`/slack/files/png-${fileId}`)).toEqual([]);
  }, 60_000);
});
