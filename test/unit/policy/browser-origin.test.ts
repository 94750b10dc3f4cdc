import { describe, expect, it } from "vitest";
import { checkBrowserOrigin } from "../../../src/policy/cors-origins";

const SERVICE = "https://gw.example.com";
const allowing = (origins: string[]) => ({ gateway: { controlUi: { allowedOrigins: origins } } });

describe("gateway browser-origin check (OpenClaw's rule)", () => {
  it("lets non-browsers, the service's own origin and listed origins in", () => {
    expect(checkBrowserOrigin({}, undefined, SERVICE)).toEqual({ ok: true });
    expect(checkBrowserOrigin({}, "https://GW.example.com", SERVICE)).toEqual({ ok: true });
    expect(checkBrowserOrigin(allowing(["https://ui.example.com"]), "https://ui.example.com", SERVICE)).toEqual({
      ok: true,
    });
    expect(checkBrowserOrigin(allowing(["*"]), "http://anything.test:8080", SERVICE)).toEqual({ ok: true });
  });

  it("refuses other origins, and null or malformed ones whatever the list says", () => {
    const refused = { ok: false, reason: "origin not allowed" };
    expect(checkBrowserOrigin({}, "https://evil.example.net", SERVICE)).toEqual(refused);
    expect(checkBrowserOrigin({}, "https://gw.example.com:444", SERVICE)).toEqual(refused);
    expect(checkBrowserOrigin({}, "http://gw.example.com", SERVICE)).toEqual(refused);
    const invalid = { ok: false, reason: "origin missing or invalid" };
    for (const origin of ["null", "", "https://gw.example.com/path", "https://u:p@gw.example.com"]) {
      expect(checkBrowserOrigin(allowing(["*"]), origin, SERVICE), origin).toEqual(invalid);
    }
  });
});
