import { describe, expect, it } from "vitest";
import type { TenantConfig } from "../../../src/protocol/config";
import {
  deploymentKeyHosts,
  deploymentKeyNames,
  deploymentKeyRefusal,
  devGrants,
  ungrantedKeysRefusal,
} from "../../../src/secrets/deployment-keys";
import { boundKeyTransportRefusal } from "../../../src/secrets/key-transport";

const HOSTS = JSON.stringify({ MODEL_KEY_OPENAI: ["api.openai.com", "API.Example.com"], MODEL_KEY_X: "not a list" });

describe("deployment key bindings (DEPLOYMENT_KEY_HOSTS)", () => {
  it("binds a key to the hosts the operator named, lower-cased; any other key to none", () => {
    expect(deploymentKeyHosts({ DEPLOYMENT_KEY_HOSTS: HOSTS }, "MODEL_KEY_OPENAI")).toEqual([
      "api.openai.com",
      "api.example.com",
    ]);
    expect(deploymentKeyHosts({ DEPLOYMENT_KEY_HOSTS: HOSTS }, "MODEL_KEY_OTHER")).toEqual([]);
    expect(deploymentKeyHosts({ DEPLOYMENT_KEY_HOSTS: HOSTS }, "MODEL_KEY_X")).toEqual([]);
    expect(deploymentKeyHosts({ DEPLOYMENT_KEY_HOSTS: HOSTS }, "constructor")).toEqual([]);
  });

  it("binds nothing when the var is unset or not a JSON object; accepts a TOML table", () => {
    for (const raw of [undefined, "", "{not json", "[]", '"api.openai.com"'])
      expect(deploymentKeyHosts({ DEPLOYMENT_KEY_HOSTS: raw }, "MODEL_KEY_OPENAI")).toEqual([]);
    expect(deploymentKeyHosts({ DEPLOYMENT_KEY_HOSTS: { MODEL_KEY_A: ["h.test"] } }, "MODEL_KEY_A")).toEqual([
      "h.test",
    ]);
  });
});

describe("dev grants (DEV_DEPLOYMENT_KEY_GRANTS)", () => {
  const env = { DEFAULT_TENANT: "default", DEV_DEPLOYMENT_KEY_GRANTS: " MODEL_KEY_A, MODEL_KEY_B,,MODEL_KEY_A" };
  it("grant the listed keys to the default tenant only", () => {
    expect(devGrants(env, "default")).toEqual([
      { name: "MODEL_KEY_A", source: "dev" },
      { name: "MODEL_KEY_B", source: "dev" },
    ]);
    expect(devGrants(env, "acme")).toEqual([]);
    expect(devGrants({ ...env, DEFAULT_TENANT: undefined }, "default")).toEqual([]);
    expect(devGrants({ DEFAULT_TENANT: "default" }, "default")).toEqual([]);
  });
});

describe("deploymentKeyRefusal", () => {
  const key = { granted: true, hosts: ["api.openai.com"], value: "sk-live-value" };
  it("sends a granted key to a host it is bound to", () => {
    expect(deploymentKeyRefusal("MODEL_KEY_OPENAI", "api.openai.com", key)).toBeNull();
  });

  it("refuses an ungranted key, naming key and host, never the value", () => {
    const refused = deploymentKeyRefusal("MODEL_KEY_OPENAI", "evil.example", { ...key, granted: false })!;
    expect(refused).toContain("MODEL_KEY_OPENAI is not granted to this tenant");
    expect(refused).toContain('"evil.example"');
    expect(refused).not.toContain("sk-live-value");
  });

  it("refuses a granted key on a host it is not bound to, naming its hosts", () => {
    expect(deploymentKeyRefusal("MODEL_KEY_OPENAI", "evil.example", key)).toBe(
      'model API key secret MODEL_KEY_OPENAI is not allowed for host "evil.example" (it is bound to: api.openai.com)',
    );
    expect(deploymentKeyRefusal("MODEL_KEY_OPENAI", "api.openai.com", { ...key, hosts: [] })).toContain(
      "DEPLOYMENT_KEY_HOSTS binds it to no host",
    );
  });

  it("says a granted, bound key without a value is not set", () => {
    expect(deploymentKeyRefusal("MODEL_KEY_OPENAI", "api.openai.com", { ...key, value: undefined })).toBe(
      "model API key secret MODEL_KEY_OPENAI is not set",
    );
  });
});

describe("config writes", () => {
  const runner = (apiKeySecret: string) => ({
    type: "openai" as const,
    baseUrl: "https://h/v1",
    model: "m",
    apiKeySecret,
  });
  const config: TenantConfig = {
    agents: {
      defaults: { runner: runner("MODEL_KEY_A") },
      list: [
        { id: "main", runner: runner("MODEL_KEY_B") },
        { id: "two", runner: runner("MODEL_KEY_A") },
        { id: "hook", runner: { type: "webhook", url: "https://h" } },
      ],
    },
  };

  it("finds every key the runners name, once", () => {
    expect(deploymentKeyNames(config)).toEqual(["MODEL_KEY_A", "MODEL_KEY_B"]);
    expect(deploymentKeyNames({})).toEqual([]);
  });

  it("refuses a config naming a key the tenant is not granted, naming it", () => {
    expect(ungrantedKeysRefusal(config, [{ name: "MODEL_KEY_A", source: "admin" }])).toContain(
      "deployment key MODEL_KEY_B not granted to this tenant",
    );
    expect(
      ungrantedKeysRefusal(config, [
        { name: "MODEL_KEY_A", source: "dev" },
        { name: "MODEL_KEY_B", source: "admin" },
      ]),
    ).toBeNull();
  });
});

describe("boundKeyTransportRefusal (a bound key travels over https to port 443 only)", () => {
  it("lets https on the default port through, in any spelling of it", () => {
    for (const url of ["https://api.openai.com/v1", "https://api.openai.com:443/v1", "HTTPS://API.OPENAI.COM"])
      expect(boundKeyTransportRefusal(new URL(url), false), url).toBeNull();
  });

  it("refuses clear text and other ports, naming the origin", () => {
    expect(boundKeyTransportRefusal(new URL("http://api.openai.com/v1"), false)).toBe(
      "it is sent only over https, not to http://api.openai.com (http)",
    );
    expect(boundKeyTransportRefusal(new URL("https://api.openai.com:8960/v1"), false)).toBe(
      "it is sent only to the default port 443, not to https://api.openai.com:8960",
    );
    expect(boundKeyTransportRefusal(new URL("http://api.openai.com:443/v1"), false)).toContain("only over https");
  });

  it("lets loopback through on any scheme and port only while OUTBOUND_ALLOW_LOOPBACK is on", () => {
    for (const url of ["http://127.0.0.1:8960/v1", "http://localhost:1234", "http://[::1]:99/"]) {
      expect(boundKeyTransportRefusal(new URL(url), true), url).toBeNull();
      expect(boundKeyTransportRefusal(new URL(url), false), url).not.toBeNull();
    }
    expect(boundKeyTransportRefusal(new URL("http://api.openai.com"), true)).not.toBeNull();
  });
});
