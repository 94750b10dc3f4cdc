import { describe, expect, it } from "vitest";
import { isInOwnFolder, isLegacyOwnFile, legacyAttachmentPrefix } from "../../../src/spawn/legacy-attachments";
import { sessionAttachmentPrefix } from "../../../src/spawn/spawn-attachments";

/**
 * A session's files stored before its prefix escaped `/` and `%` (review of issue 46, finding 8):
 * its deletion and export also take its own files under the old prefix, and never another
 * session's that share that prefix.
 */
const UUID = "0b6f0a57-2d1c-4b8e-9a43-5f0e7c1d2b3a";
const HEX64 = "a".repeat(64);
/** Paths a session writes under its own prefix (chat media, a spawn's files and manifest, import staging). */
const OWN = [
  "media/inbound/telegram-42-0.jpg",
  "media/inbound/slack-F0123-1",
  `.openclaw/attachments/${UUID}/notes.txt`,
  `.openclaw/attachments/${UUID}/.manifest.json`,
  `.import-staging/${HEX64}/000003`,
];

describe("legacy attachment prefix", () => {
  it("exists only for keys with / or %, and not where it is another key's prefix today", () => {
    expect(legacyAttachmentPrefix("acme", "agent:main:main")).toBeNull();
    expect(legacyAttachmentPrefix("acme", "agent:main:a/b")).toBe("acme/agent:main:a/b/");
    expect(legacyAttachmentPrefix("acme", "agent:main:50%off")).toBe("acme/agent:main:50%off/");
    // `agent:main:a%2Fb`'s old prefix is `agent:main:a/b`'s prefix today: ambiguous, left alone.
    expect(legacyAttachmentPrefix("acme", "agent:main:a%2Fb")).toBeNull();
    expect(sessionAttachmentPrefix("acme", "agent:main:a/b")).toBe("acme/agent:main:a%2Fb/");
    // No key's prefix today equals an old prefix that is kept.
    for (const key of ["agent:main:a/b", "agent:main:50%off", "agent:main:x%2Fy/z"])
      for (const other of [
        "agent:main:a/b",
        "agent:main:a%2Fb",
        "agent:main:50%off",
        "agent:main:x/y/z",
        "agent:main:x%2Fy/z",
      ])
        expect(sessionAttachmentPrefix("acme", other)).not.toBe(legacyAttachmentPrefix("acme", key));
  });

  it("a session's own files are known by their paths; a longer key's files under the same old prefix never are", () => {
    for (const path of OWN) expect(isLegacyOwnFile(path), path).toBe(true);
    // Under `acme/agent:main:a/b/`, the key `agent:main:a/b/<rest>` kept its files at `<rest>/<its path>`,
    // whatever <rest> is (even a folder name of ours), and an import may have put any media/ path.
    const rests = [
      "c",
      "media",
      "media/inbound",
      ".openclaw",
      ".openclaw/attachments",
      `.openclaw/attachments/${UUID}`,
      ".import-staging",
    ];
    const paths = [...OWN, "media/x", "media/a/b", ".openclaw/attachments/x/y"];
    for (const rest of rests)
      for (const path of paths) expect(isLegacyOwnFile(`${rest}/${path}`), `${rest}/${path}`).toBe(false);
    // Nor anything that is no file of ours.
    for (const path of [
      "notes.txt",
      "media/inbound/a/b.jpg",
      ".openclaw/attachments/a1/x.txt",
      ".import-staging/x/000001",
    ])
      expect(isLegacyOwnFile(path), path).toBe(false);
  });

  it("a session's deletion under its prefix today takes its own folders only, not a longer key's old files there", () => {
    for (const path of [...OWN, "media/photos/x.jpg"]) expect(isInOwnFolder(path), path).toBe(true);
    for (const path of ["b/media/inbound/telegram-1-0.jpg", "b/c/.openclaw/attachments/x/y", "stray.txt"])
      expect(isInOwnFolder(path), path).toBe(false);
  });
});
