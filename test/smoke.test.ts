import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

describe("worker", () => {
  it("answers health", async () => {
    const res = await exports.default.fetch("http://x/health");
    expect(await res.json()).toEqual({ ok: true, status: "live" });
  });
});
