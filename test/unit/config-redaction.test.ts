import { describe, expect, it } from "vitest";
import {
  REDACTED_SENTINEL,
  redactConfig,
  restoreRedacted,
  urlCarriesCredential,
} from "../../src/render/config-redaction";

describe("config URL redaction (OpenClaw's rule)", () => {
  it("finds a user, a password or a credential-named query parameter", () => {
    for (const url of [
      "https://u@h.example/",
      "https://u:p@h.example/",
      "https://h.example/?token=x",
      "https://h.example/?API-KEY=x",
      "https://h.example/?hook_token=x",
      "https://h.example/?bot_token=x",
      "https://h.example/?X-Amz-Signature=x",
    ]) {
      expect(urlCarriesCredential(url), url).toBe(true);
    }
    for (const url of ["https://h.example/v1", "https://h.example/?page=2&tokens=3", "not a url"]) {
      expect(urlCarriesCredential(url), url).toBe(false);
    }
  });

  it("redacts only URL keys, and restores list entries by id whatever their order", () => {
    const stored = {
      list: [
        { id: "a", baseUrl: "https://u:p@a.example" },
        { id: "b", url: "https://b.example/?key=k" },
      ],
    };
    const shown = redactConfig(stored);
    expect(shown).toEqual({
      list: [
        { id: "a", baseUrl: REDACTED_SENTINEL },
        { id: "b", url: REDACTED_SENTINEL },
      ],
    });
    const reordered = { list: [shown.list[1], shown.list[0]] };
    expect(restoreRedacted(reordered, stored)).toEqual({ ok: true, value: { list: [stored.list[1], stored.list[0]] } });
    expect(restoreRedacted({ name: REDACTED_SENTINEL }, stored)).toMatchObject({ ok: false });
  });
});
