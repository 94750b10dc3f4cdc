import { describe, expect, it } from "vitest";
import { freshTenant } from "../support/helpers";
import { GatewayClient } from "../support/ws-helpers";

/**
 * Browser origins on the gateway (OpenClaw's rule): refused at connect unless the service's own
 * or listed, and closed when the list no longer allows them. Against wrangler dev:
 * test/e2e/gateway-origin.e2e.mjs.
 */

const LISTED = "https://console.example.com";

describe("gateway browser origins", () => {
  it("a connection whose origin the config stops allowing is closed 1008; others stay", async () => {
    const t = await freshTenant("origin");
    expect((await t.config({ gateway: { controlUi: { allowedOrigins: [LISTED] } } })).status).toBe(200);
    const open = async (headers: Record<string, string>) => {
      const client = await GatewayClient.open(t.prefix, headers);
      const hello = await client.handshake({ token: t.token });
      return { client, hello };
    };
    const foreign = await open({ Origin: "https://evil.example.net" });
    expect(foreign.hello.error).toMatchObject({
      code: "INVALID_REQUEST",
      details: { code: "CONTROL_UI_ORIGIN_NOT_ALLOWED", reason: "origin not allowed" },
    });
    await foreign.client.waitForClose(5_000);
    expect(foreign.client.closed?.code).toBe(1008);

    const listed = await open({ Origin: LISTED });
    const own = await open({ Origin: "http://svc.test" });
    const cli = await open({});
    for (const { hello } of [listed, own, cli]) expect(hello.ok).toBe(true);

    expect((await t.config({})).status).toBe(200);
    await listed.client.waitForClose(5_000);
    expect(listed.client.closed).toEqual({ code: 1008, reason: "origin not allowed" });
    for (const { client } of [own, cli]) expect((await client.request("health", {})).ok).toBe(true);
    own.client.ws.close();
    cli.client.ws.close();
  });
});
