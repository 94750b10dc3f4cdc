import { describe, expect, it } from "vitest";
import { sessionAttachmentPrefix } from "../../../src/spawn/spawn-attachments";

describe("sessionAttachmentPrefix", () => {
  it("keeps the prefix a key without / or % always had", () => {
    expect(sessionAttachmentPrefix("acme", "agent:main:telegram:direct:42")).toBe(
      "acme/agent:main:telegram:direct:42/",
    );
  });

  it("never makes one session's prefix the start of another's (deleting one keeps the other's files)", () => {
    const keys = ["agent:main:a", "agent:main:a/b", "agent:main:a/b/c", "agent:main:a%2Fb", "agent:main:a%"];
    for (const one of keys)
      for (const other of keys) {
        if (one === other) continue;
        expect(sessionAttachmentPrefix("acme", other).startsWith(sessionAttachmentPrefix("acme", one))).toBe(false);
      }
  });
});
