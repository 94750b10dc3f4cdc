import { exports } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { freshTenant } from "../support/helpers";
import { GatewayClient } from "../support/ws-helpers";

// Outbound URLs of tenant config are refused when written (docs/operations.md, "Outbound
// requests"); requests the service sent itself are refused at every door. The tests run with
// OUTBOUND_ALLOW_LOOPBACK=true (vitest.config.ts): loopback passes, nothing else private does.

const open: GatewayClient[] = [];
afterEach(() => {
  for (const client of open.splice(0)) client.close();
});

const openaiRunner = (baseUrl: string) => ({ type: "openai", baseUrl, model: "m" });

describe("outbound URLs in tenant config", () => {
  it("PUT /v1/config refuses private, link-local, internal and own-origin URLs with a 400 naming the path", async () => {
    const tenant = await freshTenant("ssrf");
    const kept = { agents: { defaults: { runner: openaiRunner("http://127.0.0.1:9/v1") } } };
    expect((await tenant.config(kept)).status).toBe(200);
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [
        { agents: { defaults: { runner: openaiRunner("http://169.254.169.254/latest/meta-data") } } },
        "agents.defaults.runner.baseUrl",
        "link-local",
      ],
      [
        { agents: { defaults: { runner: { type: "webhook", url: "http://10.0.0.5/hook" } } } },
        "agents.defaults.runner.url",
        "private network",
      ],
      [
        { agents: { list: [{ id: "main" }, { id: "ops", runner: openaiRunner("http://[fd00::1]/v1") }] } },
        "agents.list.1.runner.baseUrl",
        "private network",
      ],
      [
        { agents: { defaults: { runner: { type: "anthropic", baseUrl: "http://2852039166/v1", model: "m" } } } },
        "agents.defaults.runner.baseUrl",
        "169.254.169.254",
      ],
      [{ delivery: { webhookUrl: "http://metadata.google.internal/x" } }, "delivery.webhookUrl", "internal host name"],
      [{ delivery: { webhookUrl: "http://0.0.0.0:8787/x" } }, "delivery.webhookUrl", "unspecified"],
      // The service's own origin (the request's): a runner there would run itself in a loop.
      [
        { agents: { defaults: { runner: openaiRunner(`http://svc.test/t/${tenant.id}/v1`) } } },
        "agents.defaults.runner.baseUrl",
        "own origin",
      ],
    ];
    for (const [config, path, why] of cases) {
      const put = await tenant.config(config);
      expect(put.status, JSON.stringify(config)).toBe(400);
      expect(put.data.error.type).toBe("invalid_request");
      expect(put.data.error.message).toContain(`invalid config: ${path}: `);
      expect(put.data.error.message).toContain(why);
    }
    expect((await tenant.call("/v1/config")).data.config).toEqual(kept);
  });

  it("config.set and config.patch over the gateway refuse them too, naming the path", async () => {
    const tenant = await freshTenant("ssrf-gw");
    const client = await GatewayClient.connect({ path: tenant.prefix, token: tenant.token });
    open.push(client);
    const got = await client.request("config.get", {});
    const set = await client.request("config.set", {
      raw: JSON.stringify({ delivery: { webhookUrl: "http://192.168.1.10/deliver" } }),
      baseHash: got.payload.hash,
    });
    expect(set.ok).toBe(false);
    expect(set.error?.message).toMatch(
      /^invalid config: delivery\.webhookUrl: 192\.168\.1\.10 is a private network address/,
    );
    const patch = await client.request("config.patch", {
      raw: JSON.stringify({
        agents: { defaults: { runner: { type: "webhook", url: "http://localhost.internal/run" } } },
      }),
      baseHash: got.payload.hash,
    });
    expect(patch.ok).toBe(false);
    expect(patch.error?.message).toContain("invalid config: agents.defaults.runner.url: ");
    expect(patch.error?.message).toContain("internal host name");
    const after = await client.request("config.get", {});
    expect(after.payload.hash).toBe(got.payload.hash);
  });
});

describe("the hop header", () => {
  const hop = { "x-openclaw-sessions-hop": "1" };
  const send = (path: string, init: RequestInit & { token?: string } = {}) =>
    exports.default.fetch(`http://svc.test${path}`, {
      ...init,
      headers: { ...(init.token ? { authorization: `Bearer ${init.token}` } : {}), ...init.headers },
    });

  it("is refused with 508 Loop Detected at every door, in that door's error shape", async () => {
    const tenant = await freshTenant("hop");
    const { token, prefix } = tenant;
    const json = { "content-type": "application/json" };
    const completion = JSON.stringify({ model: "openclaw", messages: [{ role: "user", content: "hi" }] });

    const chat = await send(`${prefix}/v1/chat/completions`, {
      method: "POST",
      token,
      headers: { ...json, ...hop },
      body: completion,
    });
    expect(chat.status).toBe(508);
    expect(await chat.json()).toMatchObject({ error: { type: "invalid_request_error", code: "loop_detected" } });
    const responses = await send(`${prefix}/v1/responses`, {
      method: "POST",
      token,
      headers: { ...json, ...hop },
      body: "{}",
    });
    expect(responses.status).toBe(508);
    expect(await responses.json()).toMatchObject({ error: { code: "loop_detected" } });

    const mcp = await send(`${prefix}/mcp`, { method: "POST", token, headers: { ...json, ...hop }, body: "{}" });
    expect(mcp.status).toBe(508);
    expect(await mcp.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32600 } });

    for (const [path, method] of [
      [`${prefix}/tools/invoke`, "POST"],
      [`${prefix}/v1/sessions`, "GET"],
      [`${prefix}/v1/config`, "GET"],
      ["/health", "GET"],
    ] as const) {
      const res = await send(path, {
        method,
        token,
        headers: { ...json, ...hop },
        ...(method === "POST" ? { body: "{}" } : {}),
      });
      expect(res.status, path).toBe(508);
      expect(await res.json()).toMatchObject({ ok: false, error: { type: "loop_detected" } });
    }

    const upgrade = await send(prefix, { headers: { upgrade: "websocket", ...hop } });
    expect(upgrade.status).toBe(508);
    expect(upgrade.webSocket).toBeFalsy();

    // The same requests without the header are served.
    const served = await send(`${prefix}/v1/chat/completions`, {
      method: "POST",
      token,
      headers: json,
      body: completion,
    });
    expect(served.status).toBe(200);
    expect((await send(`${prefix}/v1/sessions`, { token })).status).toBe(200);
    const socket = await send(prefix, { headers: { upgrade: "websocket" } });
    expect(socket.status).toBe(101);
    socket.webSocket?.accept();
    socket.webSocket?.close();
  });
});
