import { describe, expect, it } from "vitest";
import { sessionRelativeMediaPath, withImportedMediaKeys } from "../../../src/features/sessions/media-references";
import { fileChunkSchema, isSessionFilePath } from "../../../src/protocol/session-files";

/**
 * What an import keeps of a file's name (issue 46: export/import carry the files): a path under
 * the session's own file folders, and every media block of an imported message re-pointed under
 * the importing session's prefix, whatever tenant or session its key named.
 */

const PREFIX = "tenant-b/agent:main:telegram:direct:42/";

describe("session file paths", () => {
  it("takes paths under media/ and .openclaw/attachments/, and nothing that climbs out or names a prefix", () => {
    expect(isSessionFilePath("media/inbound/telegram-1-0.jpg")).toBe(true);
    expect(isSessionFilePath(".openclaw/attachments/5b0c/report 1.pdf")).toBe(true);
    for (const path of [
      "../other/media/x.jpg",
      "media/../../tenant-a/agent:main:main/media/inbound/x.jpg",
      "media/./x.jpg",
      "media//x.jpg",
      "/media/x.jpg",
      "tenant-a/agent:main:main/media/inbound/x.jpg",
      ".import-staging/abc/000000",
      "media\\..\\x",
      "media/x\u0000.jpg",
      "notes.txt",
      `media/${"a".repeat(256)}`,
    ]) {
      expect(isSessionFilePath(path), path).toBe(false);
    }
  });

  it("a chunk line: chunk below chunks, a count that fits the size, base64 data, a hex sha256", () => {
    const line = {
      type: "file",
      key: "agent:main:x",
      path: "media/inbound/a.png",
      mimeType: "image/png",
      bytes: 3,
      sha256: "a".repeat(64),
      chunk: 0,
      chunks: 1,
      data: "AAEC",
    };
    expect(fileChunkSchema.safeParse(line).success).toBe(true);
    const refused = (patch: Record<string, unknown>) => !fileChunkSchema.safeParse({ ...line, ...patch }).success;
    expect(refused({ chunk: 1 })).toBe(true);
    expect(refused({ chunks: 4 })).toBe(true);
    expect(refused({ bytes: 300 * 1024, chunks: 1 })).toBe(true);
    expect(refused({ data: "not base64!" })).toBe(true);
    expect(refused({ sha256: "A".repeat(64) })).toBe(true);
    expect(refused({ path: "../x.png" })).toBe(true);
    expect(refused({ extra: 1 })).toBe(true);
  });
});

describe("imported messages' media keys", () => {
  it("puts each media block's key under the importing session's prefix, from its media/ path", () => {
    const image = {
      type: "image",
      mimeType: "image/png",
      omitted: true,
      bytes: 68,
      media: { kind: "image", key: "tenant-a/agent:main:telegram:direct:42/media/inbound/telegram-9-0.jpg" },
    };
    const messages = [
      { role: "user", content: [{ type: "text", text: "look" }, image] },
      { role: "assistant", content: "plain" },
    ];
    const [user, assistant] = withImportedMediaKeys(messages, PREFIX);
    expect((user!.content as unknown[])[1]).toEqual({
      ...image,
      media: { kind: "image", key: `${PREFIX}media/inbound/telegram-9-0.jpg` },
    });
    expect(assistant).toBe(messages[1]);
    // The source message is not changed in place.
    expect(image.media.key).toBe("tenant-a/agent:main:telegram:direct:42/media/inbound/telegram-9-0.jpg");
  });

  it("drops a key with no file path of a session (another tenant's object, a climb out), keeping the block", () => {
    const block = (key: string) => ({ type: "file", mimeType: "text/plain", media: { kind: "document", key } });
    const [message] = withImportedMediaKeys(
      [{ role: "user", content: [block("tenant-a/secrets.txt"), block("x/y/media/../../../tenant-a/z")] }],
      PREFIX,
    );
    expect(message!.content).toEqual([
      { type: "file", mimeType: "text/plain", media: { kind: "document" } },
      { type: "file", mimeType: "text/plain", media: { kind: "document" } },
    ]);
    expect(sessionRelativeMediaPath("media/inbound/a.jpg")).toBe("media/inbound/a.jpg");
    expect(sessionRelativeMediaPath("a/b:c/d/media/inbound/x.jpg")).toBe("media/inbound/x.jpg");
  });
});
