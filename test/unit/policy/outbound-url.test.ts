import { describe, expect, it } from "vitest";
import {
  checkOutboundUrl,
  configOutboundRefusal,
  type OutboundPolicy,
  outboundPolicy,
  serviceOrigin,
} from "../../../src/policy/outbound-url";

const strict: OutboundPolicy = { allowLoopback: false, allowedHosts: [], ownOrigins: [] };
const refused = (url: string, policy = strict) => {
  const verdict = checkOutboundUrl(url, policy);
  return verdict.ok ? null : verdict.reason;
};

describe("outbound URL policy", () => {
  it("allows public hosts and addresses", () => {
    for (const url of [
      "https://api.openai.com/v1",
      "https://api.anthropic.com/v1",
      "http://8.8.8.8/",
      "https://[2606:4700:4700::1111]/",
      "http://172.32.0.1/",
      "http://100.128.0.1/",
      "http://192.169.0.1/",
      "https://example.com:8443/hook",
    ]) {
      expect(refused(url), url).toBeNull();
    }
  });

  it("refuses IPv4 loopback, private, CGNAT, link-local, unspecified and reserved addresses", () => {
    const cases: Record<string, string> = {
      "http://127.0.0.1:8787/": "loopback",
      "http://127.255.0.9/": "loopback",
      "http://10.0.0.5/": "private network",
      "http://172.16.0.1/": "private network",
      "http://172.31.255.255/": "private network",
      "http://192.168.1.1/": "private network",
      "http://100.64.0.1/": "private network",
      "http://100.127.255.254/": "private network",
      "http://169.254.169.254/latest/meta-data/": "link-local",
      "http://0.0.0.0:8787/": "unspecified",
      "http://0.1.2.3/": "unspecified",
      "http://224.0.0.1/": "reserved",
      "http://255.255.255.255/": "reserved",
      "http://192.0.2.1/": "reserved",
      "http://198.18.0.1/": "reserved",
    };
    for (const [url, kind] of Object.entries(cases)) expect(refused(url), url).toContain(kind);
  });

  it("sees through the IPv4 spellings URL parsing normalises (decimal, hex, octal, short forms)", () => {
    for (const url of [
      "http://2130706433/", // 127.0.0.1 as one decimal number
      "http://0x7f000001/",
      "http://0x7f.0.0.1/",
      "http://0177.0.0.1/",
      "http://127.1/",
      "http://2852039166/", // 169.254.169.254
      "http://0xa9.0xfe.0xa9.0xfe/",
      "http://0/",
      "http://012.0.0.1/", // 10.0.0.1 in octal
    ]) {
      expect(refused(url), url).not.toBeNull();
    }
    expect(refused("http://0xa9fea9fe/")).toContain("169.254.169.254");
  });

  it("refuses IPv6 loopback, unspecified, ULA, link-local and the IPv4 inside mapped, compatible, NAT64 and 6to4 forms", () => {
    const cases: Record<string, string> = {
      "http://[::1]:8787/": "loopback",
      "http://[0:0:0:0:0:0:0:1]/": "loopback",
      "http://[::]/": "unspecified",
      "http://[fc00::1]/": "private network",
      "http://[fd12:3456::1]/": "private network",
      "http://[fe80::1]/": "link-local",
      "http://[febf::1]/": "link-local",
      "http://[::ffff:127.0.0.1]/": "loopback",
      "http://[::ffff:7f00:1]/": "loopback",
      "http://[::ffff:169.254.169.254]/": "link-local",
      "http://[::ffff:10.0.0.1]/": "private network",
      "http://[::127.0.0.1]/": "loopback",
      "http://[::a00:1]/": "private network",
      "http://[64:ff9b::a9fe:a9fe]/": "link-local",
      "http://[2002:7f00:1::]/": "loopback",
      "http://[2001:db8::1]/": "reserved",
      "http://[ff02::1]/": "reserved",
      "http://[fec0::1]/": "reserved",
    };
    for (const [url, kind] of Object.entries(cases)) expect(refused(url), url).toContain(kind);
    expect(refused("http://[::ffff:8.8.8.8]/")).toBeNull();
  });

  it("refuses localhost, *.localhost and internal names (single labels, .internal, .local, …), trailing dots too", () => {
    expect(refused("http://localhost:8787/")).toContain("loopback");
    expect(refused("http://LOCALHOST./")).toContain("loopback");
    expect(refused("http://api.localhost/")).toContain("loopback");
    for (const url of [
      "http://metadata.google.internal/computeMetadata/v1/",
      "http://printer.local/",
      "http://db/",
      "http://intranet./",
      "http://nas.home.arpa/",
      "http://box.localdomain/",
      "http://git.corp/",
    ]) {
      expect(refused(url), url).toContain("internal host name");
    }
  });

  it("refuses schemes other than http and https, and text that is no URL", () => {
    expect(refused("file:///etc/passwd")).toContain("file:");
    expect(refused("ftp://example.com/")).toContain("ftp:");
    expect(refused("not a url")).toBe("not a valid URL");
  });

  it("allows loopback (127/8, ::1, localhost) only with the switch; private and link-local stay refused", () => {
    const dev = { ...strict, allowLoopback: true };
    for (const url of [
      "http://127.0.0.1:9000/",
      "http://[::1]:9000/",
      "http://localhost:9000/",
      "http://2130706433/",
    ]) {
      expect(refused(url), url).not.toBeNull();
      expect(refused(url, dev), url).toBeNull();
    }
    for (const url of [
      "http://10.0.0.1/",
      "http://169.254.169.254/",
      "http://0.0.0.0/",
      "http://[::ffff:a9fe:a9fe]/",
    ]) {
      expect(refused(url, dev), url).not.toBeNull();
    }
  });

  it("refuses the service's own origin even where loopback or the host is allowed (80 and 443 as one)", () => {
    const policy = {
      allowLoopback: true,
      allowedHosts: ["sessions.example.com"],
      ownOrigins: ["http://127.0.0.1:8787"],
    };
    expect(refused("http://127.0.0.1:8787/t/acme/v1", policy)).toContain("own origin");
    expect(refused("http://127.0.0.1:9000/v1", policy)).toBeNull();
    const deployed = { ...strict, ownOrigins: ["https://sessions.example.com"] };
    expect(refused("https://sessions.example.com/t/acme/v1", deployed)).toContain("own origin");
    expect(refused("http://SESSIONS.example.com./t/acme/v1", deployed)).toContain("own origin");
    expect(refused("https://sessions.example.com:8443/", deployed)).toBeNull();
    expect(refused("https://other.example.com/", deployed)).toBeNull();
  });

  it("builds the policy from the deployment's vars: switch, allowlist (normalised, *.suffix) and public origin", () => {
    const policy = outboundPolicy(
      {
        OUTBOUND_ALLOW_LOOPBACK: " TRUE ",
        OUTBOUND_ALLOWED_HOSTS: "Model.Internal, 10.1.2.3,0x7f.0.0.2, ::1 ,*.lab.corp,,",
        PUBLIC_ORIGIN: "https://sessions.example.com/ignored/path",
      },
      "http://127.0.0.1:8787",
    );
    expect(policy.allowLoopback).toBe(true);
    expect(policy.allowedHosts).toEqual(["model.internal", "10.1.2.3", "127.0.0.2", "[::1]", "*.lab.corp"]);
    expect(policy.ownOrigins).toEqual(["https://sessions.example.com", "http://127.0.0.1:8787"]);
    expect(refused("http://model.internal:11434/v1", policy)).toBeNull();
    expect(refused("http://10.1.2.3/", policy)).toBeNull();
    expect(refused("http://10.1.2.4/", policy)).toContain("private");
    expect(refused("http://gpu.lab.corp/", policy)).toBeNull();
    expect(refused("http://lab.corp/", policy)).toContain("internal host name");
    expect(outboundPolicy({}).allowLoopback).toBe(false);
    expect(outboundPolicy({ OUTBOUND_ALLOW_LOOPBACK: "1" }).allowLoopback).toBe(false);
    expect(outboundPolicy({ PUBLIC_ORIGIN: "not an origin" }).ownOrigins).toEqual([]);
  });

  it("finds the first refused URL of a config by its dotted path (runners of defaults and agents, delivery)", () => {
    const runner = (baseUrl: string) => ({ type: "openai" as const, baseUrl, model: "m" });
    expect(
      configOutboundRefusal({ agents: { defaults: { runner: runner("https://api.openai.com/v1") } } }, strict),
    ).toBeNull();
    expect(
      configOutboundRefusal({ agents: { defaults: { runner: { type: "anthropic", model: "m" } } } }, strict),
    ).toBeNull();
    expect(
      configOutboundRefusal(
        { agents: { list: [{ id: "a" }, { id: "b", runner: { type: "webhook", url: "http://10.0.0.1/" } }] } },
        strict,
      ),
    ).toEqual({ path: "agents.list.1.runner.url", reason: expect.stringContaining("private network") });
    expect(configOutboundRefusal({ delivery: { webhookUrl: "http://[::1]/d" } }, strict)).toEqual({
      path: "delivery.webhookUrl",
      reason: expect.stringContaining("loopback"),
    });
  });

  it("names the service's origin by PUBLIC_ORIGIN when set, else by the request (its Host header)", () => {
    expect(serviceOrigin({}, "http://127.0.0.1:8787/t/a/v1/runs")).toBe("http://127.0.0.1:8787");
    expect(serviceOrigin({ PUBLIC_ORIGIN: "https://sessions.example.com" }, "http://evil.example/t/a")).toBe(
      "https://sessions.example.com",
    );
    expect(serviceOrigin({ PUBLIC_ORIGIN: " " }, "http://evil.example/t/a")).toBe("http://evil.example");
  });
});
