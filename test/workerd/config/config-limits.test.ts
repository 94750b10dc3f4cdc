import { describe, expect, it } from "vitest";
import { MAX_CONFIG_CHARS, MAX_CONFIG_DEPTH } from "../../../src/policy/config-bounds";
import { freshTenant } from "../support/helpers";
import { GatewayClient } from "../support/ws-helpers";

/** A tenant admin's config writes are bounded before any merge (issue 36, item 5). */

const nested = (levels: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
};
/** A valid config of about `chars` characters: agents with long names. */
const largeConfig = (chars: number) => {
  const name = "n".repeat(2000);
  const count = Math.ceil(chars / 2000);
  return { agents: { list: Array.from({ length: count }, (_, i) => ({ id: `a${i}`, name })) } };
};

describe("config write bounds", () => {
  it("a 2,000-level config.patch or config.set is INVALID_REQUEST, not UNAVAILABLE", async () => {
    const t = await freshTenant("deep");
    const ws = await GatewayClient.connect({ path: t.prefix, token: t.token });
    const { payload } = await ws.request("config.get", {});
    for (const method of ["config.patch", "config.set"]) {
      const raw = JSON.stringify({ session: nested(2000) });
      const res = await ws.request(method, { raw, baseHash: payload.hash });
      expect(res.ok, method).toBe(false);
      expect(res.error.code).toBe("INVALID_REQUEST");
      expect(res.error.message).toBe(
        `invalid ${method} params: config is nested deeper than ${MAX_CONFIG_DEPTH} levels`,
      );
    }
    const big = await ws.request("config.set", {
      raw: JSON.stringify(largeConfig(MAX_CONFIG_CHARS + 10)),
      baseHash: payload.hash,
    });
    expect(big.error.code).toBe("INVALID_REQUEST");
    expect(big.error.message).toContain(`larger than ${MAX_CONFIG_CHARS}`);
    // The socket and the config are as they were.
    expect((await ws.request("config.get", {})).payload.hash).toBe(payload.hash);
    ws.ws.close();
  });

  it("PUT /v1/config refuses a deep or large config with 400 before validating it", async () => {
    const t = await freshTenant("deep-http");
    const deep = await t.config({ session: nested(2000) as Record<string, unknown> });
    expect(deep.status).toBe(400);
    expect(deep.data.error.message).toBe(`invalid config: config is nested deeper than ${MAX_CONFIG_DEPTH} levels`);
    const big = await t.config(largeConfig(MAX_CONFIG_CHARS + 10));
    expect(big.status).toBe(400);
    expect(big.data.error.message).toContain(`larger than ${MAX_CONFIG_CHARS}`);
  });

  it("agents.create cannot grow a config past the size bound", async () => {
    const t = await freshTenant("grow");
    const near = largeConfig(MAX_CONFIG_CHARS - 3000);
    while (JSON.stringify(near).length > MAX_CONFIG_CHARS - 200) near.agents.list.pop();
    const last = near.agents.list.at(-1)!;
    last.name += "n".repeat(MAX_CONFIG_CHARS - 200 - JSON.stringify(near).length);
    expect((await t.config(near)).status).toBe(200);
    const ws = await GatewayClient.connect({ path: t.prefix, token: t.token });
    const res = await ws.request("agents.create", { name: "extra", avatar: "x".repeat(2000) });
    expect(res.ok).toBe(false);
    expect(res.error.code).toBe("INVALID_REQUEST");
    expect(res.error.message).toContain(`larger than ${MAX_CONFIG_CHARS}`);
    ws.ws.close();
  });
});
