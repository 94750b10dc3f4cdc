import { env } from "cloudflare:test";
import { describe, expect, inject, it } from "vitest";
import { FILE_CHUNK_MAX_BYTES } from "../../../src/protocol/session-files";
import { toBase64 } from "../../../src/util/encoding";
import { PEER_PNG_BASE64 } from "../../peers/peer-files";
import { ADMIN, call, freshTenant, type TestTenant, until } from "../support/helpers";
import { peerTelegramChannel, postTelegramDm } from "../support/telegram-helpers";

/**
 * Export and import carry a session's stored files (issue 46, "Export/import and deletion carry
 * the files"): the export writes each file under the session's prefix as chunked `file` lines
 * after the session's messages; an import page takes them back under the IMPORTING tenant's
 * prefix (keys built from its tenant, the session and a checked path), checks size, SHA-256 and
 * the tenant's media limits, and points the imported messages' media blocks at the new keys.
 * The webhook, inbox, session objects, runner and bucket are real; the Bot API, its file server
 * and the model are the test peer's.
 */

const PEER_PNG = Uint8Array.from(atob(PEER_PNG_BASE64), (c) => c.charCodeAt(0));
const peer = `http://127.0.0.1:${inject("peerPort")}`;
const SECRET = "tg-webhook-secret-transfer-012345";
let nextUpdateId = 970_000;

type Line = Record<string, any>;
type Block = { type: string; media?: { kind: string; key?: string }; mimeType?: string; bytes?: number };

/** A tenant whose agent is the peer's recording model, with Telegram DMs in sessions of their own. */
async function tenantWithModel(label: string, extra: Record<string, unknown> = {}): Promise<TestTenant> {
  const t = await freshTenant(label);
  const runner = { type: "openai", baseUrl: `${peer}/v1`, model: `record:${t.id}` };
  const put = await t.config({
    agents: { list: [{ id: "main", default: true, runner }] },
    channels: { telegram: peerTelegramChannel(SECRET) },
    session: { dmScope: "per-channel-peer" },
    ...extra,
  });
  expect(put.status, put.text).toBe(200);
  return t;
}

async function exportLines(t: TestTenant): Promise<Line[]> {
  const res = await t.call("/v1/export");
  expect(res.status, res.text).toBe(200);
  return res.text
    .trim()
    .split("\n")
    .map((l: string) => JSON.parse(l));
}

const importPage = (t: TestTenant, key: string, body: Record<string, unknown>) =>
  t.call(`/v1/sessions/${encodeURIComponent(key)}/import`, { method: "POST", json: body });

async function bucketBytes(key: string): Promise<Uint8Array | null> {
  const object = await env.ATTACHMENTS.get(key);
  return object ? new Uint8Array(await object.arrayBuffer()) : null;
}

async function keysUnder(prefix: string): Promise<string[]> {
  return (await env.ATTACHMENTS.list({ prefix })).objects.map((o) => o.key);
}

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Deletes a tenant as the operator does, step after step until done. */
async function deleteTenant(id: string): Promise<void> {
  await until(
    () => call(`/v1/admin/tenants/${id}`, { method: "DELETE", token: ADMIN }),
    (res) => res.status === 200 && res.data.done === true,
    30_000,
  );
}

/** One file's chunk line, as the export writes it. */
function fileLine(path: string, bytes: Uint8Array, sha256: string, extra: Record<string, unknown> = {}) {
  return {
    type: "file",
    path,
    mimeType: "image/png",
    bytes: bytes.length,
    sha256,
    chunk: 0,
    chunks: 1,
    data: toBase64(bytes),
    ...extra,
  };
}

/** The line of chunk `chunk` of a file cut as the export cuts it (FILE_CHUNK_MAX_BYTES each). */
async function chunkLine(path: string, whole: Uint8Array, chunk: number) {
  const part = whole.subarray(chunk * FILE_CHUNK_MAX_BYTES, (chunk + 1) * FILE_CHUNK_MAX_BYTES);
  const chunks = Math.max(1, Math.ceil(whole.length / FILE_CHUNK_MAX_BYTES));
  return fileLine(path, part, await sha256Hex(whole), { bytes: whole.length, chunk, chunks });
}

describe("export and import carry a session's files", () => {
  it("a photo turn's file goes out in the export and comes back under the new tenant's prefix, readable by a run", async () => {
    const source = await tenantWithModel("xfer-src");
    const updateId = nextUpdateId++;
    const chatId = 700_000 + (updateId % 100_000);
    await postTelegramDm(
      source,
      SECRET,
      { updateId, chatId },
      {
        photo: [
          {
            file_id: `png-${crypto.randomUUID()}`,
            file_unique_id: "l",
            width: 1280,
            height: 720,
            file_size: PEER_PNG.length,
          },
        ],
        caption: "what is this",
      },
    );
    const key = `agent:main:telegram:direct:${chatId}`;
    const path = `media/inbound/telegram-${updateId}-0.jpg`;
    await until(
      async () => (await source.call(`/sessions/${encodeURIComponent(key)}/history`)).data?.messages ?? [],
      (messages: Array<{ role: string }>) => messages.some((m) => m.role === "assistant"),
    );
    // A second file of three chunks beside it (seeded into the bucket as the channel would store it).
    const big = Uint8Array.from({ length: 2 * FILE_CHUNK_MAX_BYTES + 1000 }, (_, i) => (i * 31) % 251);
    await env.ATTACHMENTS.put(`${source.id}/${key}/media/inbound/big.bin`, big);

    const lines = await exportLines(source);
    expect(lines[0]).toMatchObject({ type: "export", version: 2 });
    const kinds = lines.filter((l) => l.key === key).map((l) => l.type);
    // Files after the session's messages.
    expect(kinds).toEqual(["session", "transcript", "message", "message", "file", "file", "file", "file"]);
    const files = lines.filter((l) => l.type === "file");
    expect(files.map((l) => [l.path, l.chunk, l.chunks, l.bytes])).toEqual([
      ["media/inbound/big.bin", 0, 3, big.length],
      ["media/inbound/big.bin", 1, 3, big.length],
      ["media/inbound/big.bin", 2, 3, big.length],
      [path, 0, 1, PEER_PNG.length],
    ]);
    expect(files[3]).toMatchObject({ mimeType: "image/png", sha256: await sha256Hex(PEER_PNG), data: PEER_PNG_BASE64 });
    expect(files[0]!.sha256).toBe(await sha256Hex(big));
    expect(lines.at(-1)).toEqual({
      type: "end",
      sessions: 1,
      transcripts: 1,
      messages: 2,
      files: 2,
      fileBytes: big.length + PEER_PNG.length,
    });

    // The source is gone, files and all.
    await deleteTenant(source.id);
    expect(await keysUnder(`${source.id}/`)).toEqual([]);

    // Into a new tenant: the messages page, then the file lines as they are, a few per page.
    const target = await tenantWithModel("xfer-dst");
    const transcript = lines.find((l) => l.type === "transcript" && l.key === key)!;
    const messages = lines.filter((l) => l.type === "message" && l.key === key).map((l) => l.message);
    const first = await importPage(target, key, { sessionId: transcript.sessionId, messages });
    expect(first.status, first.text).toBe(201);
    const second = await importPage(target, key, { sessionId: transcript.sessionId, files: files.slice(0, 2) });
    expect(second.status, second.text).toBe(200);
    expect(second.data.files).toEqual({ staged: 2, stored: [], skipped: 0 });
    // Two chunks of three: nothing at the file's key yet.
    expect(await bucketBytes(`${target.id}/${key}/media/inbound/big.bin`)).toBeNull();
    const third = await importPage(target, key, { sessionId: transcript.sessionId, files: files.slice(2) });
    expect(third.status, third.text).toBe(200);
    expect(third.data.files).toEqual({ staged: 0, stored: ["media/inbound/big.bin", path], skipped: 0 });

    const newKey = `${target.id}/${key}/${path}`;
    expect(await bucketBytes(newKey)).toEqual(PEER_PNG);
    expect(await bucketBytes(`${target.id}/${key}/media/inbound/big.bin`)).toEqual(big);
    // Only the files: no chunk left behind.
    expect((await keysUnder(`${target.id}/`)).sort()).toEqual([`${target.id}/${key}/media/inbound/big.bin`, newKey]);

    // A rerun (before the session is written to here) of the file lines finds the files there: nothing staged or written again.
    const rerun = await importPage(target, key, { sessionId: transcript.sessionId, files: files.slice(3) });
    expect(rerun.data.files).toEqual({ staged: 0, stored: [], skipped: 1 });

    const history = await target.call(`/sessions/${encodeURIComponent(key)}/history`);
    const userMessage = (history.data.messages as Array<{ role: string; content: Block[] }>).find(
      (m) => m.role === "user",
    )!;
    const image = userMessage.content.find((b) => b.type === "image")!;
    expect(image).toMatchObject({
      mimeType: "image/png",
      bytes: PEER_PNG.length,
      media: { kind: "image", key: newKey },
    });

    // A run of the new tenant given that block's file reads it (the image-parts path): the model gets its bytes.
    const stub = env.SESSIONS.getByName(`${target.id}/${key}`);
    const started = await stub.startRun(
      { tenantId: target.id, key, agentId: "main" },
      {
        runId: `xfer-${crypto.randomUUID()}`,
        input: {
          message: "and again?",
          origin: "chat.send",
          media: [{ key: image.media!.key!, kind: "image", mimeType: "image/png", bytes: PEER_PNG.length }],
        },
        runner: { type: "openai", baseUrl: `${peer}/v1`, model: `record:${target.id}` },
        userMessage: { role: "user", content: "and again?" },
      },
    );
    expect(started).toMatchObject({ status: "started" });
    const [request] = await until(
      async () =>
        (await (
          await fetch(`${peer}/control/recorded?path=${encodeURIComponent(`/model/${target.id}`)}`)
        ).json()) as Array<{
          body: { messages: Array<{ content: unknown }> };
        }>,
      (list) => list.length >= 1,
    );
    const parts = request!.body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []));
    expect(parts).toContainEqual({ type: "image_url", image_url: { url: `data:image/png;base64,${PEER_PNG_BASE64}` } });
  }, 90_000);

  it("an imported message's media key naming another tenant is re-pointed into the importing session", async () => {
    const t = await freshTenant("xfer-repoint");
    const key = "agent:main:repoint";
    const res = await importPage(t, key, {
      sessionId: crypto.randomUUID(),
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "see" },
            {
              type: "image",
              mimeType: "image/png",
              omitted: true,
              bytes: 68,
              media: { kind: "image", key: "victim/agent:main:main/media/inbound/x.jpg" },
            },
            {
              type: "file",
              mimeType: "text/plain",
              omitted: true,
              bytes: 9,
              media: { kind: "document", key: "victim/secret.txt" },
            },
          ],
          timestamp: 1_700_000_000_000,
          __openclaw: { id: "m1", seq: 1 },
        },
      ],
    });
    expect(res.status, res.text).toBe(201);
    const history = await t.call(`/sessions/${encodeURIComponent(key)}/history`);
    const blocks = history.data.messages[0].content as Block[];
    expect(blocks[1]!.media).toEqual({ kind: "image", key: `${t.id}/${key}/media/inbound/x.jpg` });
    expect(blocks[2]!.media).toEqual({ kind: "document" });
  });
});

describe("a file of no bytes", () => {
  it("goes out as one empty chunk and comes back as an empty file", async () => {
    const source = await freshTenant("xfer-empty-src");
    const key = "agent:main:empty";
    await source.append(key, { role: "user", content: "nothing attached" });
    await env.ATTACHMENTS.put(`${source.id}/${key}/.openclaw/attachments/a1/empty.txt`, new Uint8Array(0));
    const file = (await exportLines(source)).find((l) => l.type === "file")!;
    const emptySha = await sha256Hex(new Uint8Array(0));
    expect(file).toEqual({
      type: "file",
      key,
      path: ".openclaw/attachments/a1/empty.txt",
      bytes: 0,
      sha256: emptySha,
      chunk: 0,
      chunks: 1,
      data: "",
    });
    const target = await freshTenant("xfer-empty-dst");
    const res = await importPage(target, key, { sessionId: crypto.randomUUID(), files: [file] });
    expect(res.status, res.text).toBe(201);
    expect(res.data.files).toEqual({ staged: 0, stored: [file.path], skipped: 0 });
    expect(await bucketBytes(`${target.id}/${key}/${file.path}`)).toEqual(new Uint8Array(0));
  });
});

describe("import refuses a file it cannot take, writing nothing", () => {
  const refusedWith = (res: { status: number; data: any }, status: number, type: string) => {
    expect(res.status).toBe(status);
    expect(res.data).toMatchObject({ ok: false, error: { type, message: expect.any(String) } });
  };

  it("a path climbing out of the session or naming another tenant's prefix: 400, no session, no file", async () => {
    const victim = await freshTenant("xfer-victim");
    const t = await freshTenant("xfer-hostile");
    const sha = await sha256Hex(PEER_PNG);
    for (const path of ["../../x.png", "media/../../x.png", `${victim.id}/agent:main:main/media/inbound/x.png`]) {
      const res = await importPage(t, "agent:main:hostile", {
        sessionId: crypto.randomUUID(),
        files: [fileLine(path, PEER_PNG, sha)],
      });
      refusedWith(res, 400, "invalid_request");
      expect(res.data.error.message).toContain("files.0.path");
    }
    expect(await keysUnder(`${victim.id}/`)).toEqual([]);
    expect(await keysUnder(`${t.id}/`)).toEqual([]);
    expect((await t.list()).data.sessions).toEqual([]);
  });

  it("a wrong sha256: 400 once the file is whole, nothing at its key and no chunk kept", async () => {
    const t = await freshTenant("xfer-sha");
    const key = "agent:main:sha";
    const res = await importPage(t, key, {
      sessionId: crypto.randomUUID(),
      files: [fileLine("media/inbound/x.png", PEER_PNG, "0".repeat(64))],
    });
    refusedWith(res, 400, "invalid_request");
    expect(res.data.error.message).toContain(`SHA-256 ${await sha256Hex(PEER_PNG)}, not ${"0".repeat(64)}`);
    expect(await keysUnder(`${t.id}/`)).toEqual([]);
  });

  it("a file over mediaBytesPerFile: 413; past the tenant's mediaBytesPerTenant: 429 with Retry-After", async () => {
    const t = await freshTenant("xfer-limits");
    const put = await t.config({ limits: { mediaBytesPerFile: PEER_PNG.length - 1 } });
    expect(put.status, put.text).toBe(200);
    const sha = await sha256Hex(PEER_PNG);
    const tooBig = await importPage(t, "agent:main:lim", {
      sessionId: crypto.randomUUID(),
      files: [fileLine("media/inbound/x.png", PEER_PNG, sha)],
    });
    refusedWith(tooBig, 413, "payload_too_large");
    expect(tooBig.data.error.message).toContain("mediaBytesPerFile");

    // Room for one copy and a half: the second file does not fit.
    const fits = await t.config({ limits: { mediaBytesPerTenant: Math.floor(PEER_PNG.length * 1.5) } });
    expect(fits.status, fits.text).toBe(200);
    const sessionId = crypto.randomUUID();
    const one = await importPage(t, "agent:main:lim", {
      sessionId,
      files: [fileLine("media/inbound/a.png", PEER_PNG, sha)],
    });
    expect(one.status, one.text).toBe(201);
    const two = await importPage(t, "agent:main:lim", {
      sessionId,
      files: [fileLine("media/inbound/b.png", PEER_PNG, sha)],
    });
    refusedWith(two, 429, "rate_limited");
    expect(two.headers.get("retry-after")).toBe("60");
    expect(two.data.error.message).toContain("mediaBytesPerTenant");
    expect(await keysUnder(`${t.id}/`)).toEqual([`${t.id}/agent:main:lim/media/inbound/a.png`]);
  });
});

describe("import keeps the tenant's stored bytes exact", () => {
  it("the tenant's stored bytes stay what R2 keeps: a page sent twice, and another file at a path already held", async () => {
    const t = await freshTenant("xfer-exact");
    const key = "agent:main:exact";
    const sessionId = crypto.randomUUID();
    const big = Uint8Array.from({ length: FILE_CHUNK_MAX_BYTES + 100 }, (_, i) => (i * 7) % 251);
    // The first chunk's page twice (a retried page), then the last one.
    for (const chunk of [0, 0, 1]) {
      const res = await importPage(t, key, {
        sessionId,
        files: [await chunkLine("media/inbound/big.bin", big, chunk)],
      });
      expect(res.status, res.text).toBeLessThan(300);
    }
    // A file, then another at the same path (a source whose file changed between two imports).
    const other = PEER_PNG.subarray(0, 50);
    for (const bytes of [PEER_PNG, other]) {
      const res = await importPage(t, key, {
        sessionId,
        files: [fileLine("media/inbound/a.png", bytes, await sha256Hex(bytes))],
      });
      expect(res.status, res.text).toBe(200);
    }
    expect(await bucketBytes(`${t.id}/${key}/media/inbound/a.png`)).toEqual(other);
    const kept = big.length + other.length;
    const today = new Date().toISOString().slice(0, 10);
    const level = await until(
      async () =>
        (await call(`/v1/admin/tenants/${t.id}/usage?from=${today}&to=${today}`, { token: ADMIN })).data?.totals
          ?.r2StoredBytes,
      (bytes) => bytes === kept,
      5_000,
    ).catch(() => undefined);
    const billed = (await call(`/v1/admin/tenants/${t.id}/usage?from=${today}&to=${today}`, { token: ADMIN })).data;
    expect(level ?? billed.totals.r2StoredBytes).toBe(kept);
  }, 60_000);

  it("a file's room is checked once, at its first chunk: its later pages list nothing of the tenant's prefix", async () => {
    const t = await freshTenant("xfer-room");
    const key = "agent:main:room";
    const sessionId = crypto.randomUUID();
    const big = Uint8Array.from({ length: 2 * FILE_CHUNK_MAX_BYTES + 10 }, (_, i) => (i * 13) % 251);
    const tenantListings = await countingListsOf(`${t.id}/`, async () => {
      for (const chunk of [0, 1, 2]) {
        const res = await importPage(t, key, {
          sessionId,
          files: [await chunkLine("media/inbound/big.bin", big, chunk)],
        });
        expect(res.status, res.text).toBeLessThan(300);
      }
    });
    expect(await bucketBytes(`${t.id}/${key}/media/inbound/big.bin`)).toEqual(big);
    expect(tenantListings).toBe(1);
  });

  it("two pages finishing one file at once: both answer it stored, the file whole at its key", async () => {
    const t = await freshTenant("xfer-twice");
    const key = "agent:main:twice";
    const sessionId = crypto.randomUUID();
    const big = Uint8Array.from({ length: FILE_CHUNK_MAX_BYTES + 10 }, (_, i) => (i * 17) % 251);
    expect(
      (await importPage(t, key, { sessionId, files: [await chunkLine("media/inbound/big.bin", big, 0)] })).status,
    ).toBe(201);
    const last = await chunkLine("media/inbound/big.bin", big, 1);
    const finishing = await Promise.all([1, 2].map(() => importPage(t, key, { sessionId, files: [last] })));
    for (const res of finishing) expect(res.status, res.text).toBe(200);
    expect(await bucketBytes(`${t.id}/${key}/media/inbound/big.bin`)).toEqual(big);
    expect(await keysUnder(`${t.id}/`)).toEqual([`${t.id}/${key}/media/inbound/big.bin`]);
  });
});

/** How many R2 listings of exactly `prefix` (the room check's) `work` makes, counted on the binding itself. */
async function countingListsOf(prefix: string, work: () => Promise<void>): Promise<number> {
  const proto = Object.getPrototypeOf(env.ATTACHMENTS) as { list: R2Bucket["list"] };
  const before = Object.getOwnPropertyDescriptor(proto, "list")!;
  let count = 0;
  Object.defineProperty(proto, "list", {
    ...before,
    value: function counted(this: R2Bucket, options?: R2ListOptions) {
      if (options?.prefix === prefix) count++;
      return (before.value as R2Bucket["list"]).call(this, options);
    },
  });
  try {
    await work();
  } finally {
    Object.defineProperty(proto, "list", before);
  }
  return count;
}
