import { describe, expect, it } from "vitest";
import { markFields, markFlags, marksProblem } from "../../../src/domain/marks";
import { classify, mountOf, rebase } from "../../../src/http/control-ui/paths";

describe("Control UI routing (pure)", () => {
  it("mounts the UI at / for the default tenant and at /t/<id>/ per tenant", () => {
    expect(mountOf("/chat/main")).toEqual({ tenantId: null, base: "", rest: "/chat/main" });
    expect(mountOf("/t/acme/chat/main")).toEqual({ tenantId: "acme", base: "/t/acme", rest: "/chat/main" });
  });

  it("gives html navigations the UI, API paths the API, and never the html for a missing file", () => {
    const html = "text/html,application/xhtml+xml";
    expect(classify("/chat/main/demo", "", "", html)).toEqual({ kind: "html" });
    expect(classify("/chat/main/demo", "", "", "application/json")).toEqual({ kind: "pass" });
    expect(classify("/v1/sessions", "", "", html)).toEqual({ kind: "pass" });
    expect(classify("", "?x=1", "/t/acme", html)).toEqual({ kind: "redirect", location: "/t/acme/?x=1" });
    expect(classify("/chat/main/assets/app-1.js", "", "", "*/*")).toEqual({
      kind: "asset",
      path: "/assets/app-1.js",
      immutable: true,
    });
    expect(classify("/avatar/main", "", "", html)).toEqual({ kind: "missing" });
    expect(classify("/.env", "", "", html)).toEqual({ kind: "missing" });
    expect(classify("/control-ui-config.json", "", "", "*/*")).toEqual({ kind: "config" });
    expect(rebase("./assets/app.js", "/t/acme")).toBe("/t/acme/assets/app.js");
  });
});

describe("Control UI session marks (pure)", () => {
  it("archiving unpins, reading clears the unread mark, and an archived session cannot be pinned", () => {
    expect(markFields({ archived: true }, 5)).toEqual({ archivedAt: 5, pinnedAt: null });
    expect(markFields({ unread: false }, 7)).toEqual({ lastReadAt: 7, markedUnreadAt: null });
    expect(marksProblem({ pinned: true }, { archivedAt: 1 } as never, "k")).toBe(
      "cannot pin an archived session; restore it first",
    );
    expect(marksProblem({ archived: true }, null, "k")).toBe(
      "expectedSessionId required for session lifecycle patch: k",
    );
    expect(markFlags({ lastInteractionAt: 10, lastReadAt: 5 })).toEqual({
      unread: true,
      pinned: false,
      archived: false,
    });
    expect(markFlags({ lastInteractionAt: 10, lastReadAt: 10 }).unread).toBe(false);
  });
});
