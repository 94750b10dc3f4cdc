import { describe, expect, it } from "vitest";
import { z } from "zod";
import { adminLabels, PAIRING_CHANNELS } from "../../../src/features/channels/channel-admin";
import type { InboundHost } from "../../../src/features/channels/channel-registry";
import { catalogueMeta, NOT_SERVED_DETAIL } from "../../../src/features/channels/control-ui-catalogue";
import type { ChatPlatform } from "../../../src/features/channels/platform";
import { CHANNEL_NAMES, inboundAdapters, PLATFORMS } from "../../../src/features/channels/platforms";
import { HTTP_429_RULE } from "../../../src/features/channels/rate-limit";
import { setupFor } from "../../../src/features/channels/setup-steps";
import { HOOK_CHANNELS } from "../../../src/features/hooks/hook-request";
import { configOutboundRefusal } from "../../../src/policy/outbound-url";
import {
  CHANNEL_CONFIGS,
  CHANNEL_OUTBOUND_URL_KEYS,
  CHANNEL_SECRET_KEYS,
  CHANNEL_SECRET_NAMES,
  type ChannelConfigSpec,
  channelConfigLists,
  channelsConfigSchema,
} from "../../../src/protocol/channels";

const host: InboundHost = {
  resolve: async () => null,
  outbound: { allowLoopback: false, allowedHosts: [], ownOrigins: [] },
  identity: () => ({ get: () => null, save: () => {} }),
};

/** Every per-platform list is derived from PLATFORMS: a registered platform missing from one fails here. */
describe("the platform list", () => {
  const names = PLATFORMS.map((platform) => platform.name);

  it("the config halves are the registered platforms, in order", () => {
    expect(CHANNEL_CONFIGS.map((spec) => spec.name)).toEqual(names);
    for (const platform of PLATFORMS) expect(CHANNEL_CONFIGS).toContain(platform.config);
    expect(CHANNEL_NAMES).toEqual(names);
  });

  it("config schema, secret keys and store names, outbound URL keys and hook channels list each platform", () => {
    expect(Object.keys(channelsConfigSchema.shape)).toEqual(names);
    expect(Object.keys(CHANNEL_SECRET_KEYS)).toEqual(names);
    for (const platform of PLATFORMS) {
      const keys = Object.keys(platform.config.secrets);
      expect(keys.length).toBeGreaterThan(0);
      expect(CHANNEL_SECRET_KEYS[platform.name]).toEqual(keys);
      for (const key of keys) expect(CHANNEL_SECRET_NAMES[`${platform.name}.${key}`]).toMatch(/^[A-Z][A-Z0-9_]+$/);
      for (const key of platform.config.outboundUrlKeys)
        expect(CHANNEL_OUTBOUND_URL_KEYS).toContainEqual([platform.name, key]);
      if (platform.config.hookChannel) expect(HOOK_CHANNELS).toContain(platform.name);
    }
  });

  it("the outbound guard checks every platform's URL keys", () => {
    for (const [channel, key] of CHANNEL_OUTBOUND_URL_KEYS) {
      const config = { channels: { [channel]: { [key]: "http://127.0.0.1:9/" } } };
      expect(
        configOutboundRefusal(config as never, { allowLoopback: false, allowedHosts: [], ownOrigins: [] })?.path,
      ).toBe(`channels.${channel}.${key}`);
    }
  });

  it("admin labels, pairing channels, inbound adapters and ingress paths cover each platform", () => {
    const labels = adminLabels(PLATFORMS);
    for (const name of names) {
      expect(labels.channelLabels[name]).toBeTruthy();
      expect(labels.senderLabels[name]).toBeTruthy();
      expect(labels.modes[name]).toBeTruthy();
    }
    expect(PAIRING_CHANNELS).toEqual(PLATFORMS.filter((platform) => platform.pairing).map((p) => p.name));
    expect(Object.keys(inboundAdapters(host))).toEqual(names);
    const paths = PLATFORMS.map((platform) => platform.ingress.defaultPath);
    expect(new Set(paths).size).toBe(paths.length);
  });

  it("a new descriptor in the list is all it takes: every derived list contains it", () => {
    const dummyConfig = {
      name: "dummychat",
      schema: z.looseObject({
        enabled: z.boolean().optional(),
        apiToken: z.string().optional(),
        apiRoot: z.url().optional(),
      }),
      secrets: { apiToken: "DUMMYCHAT_API_TOKEN" },
      outboundUrlKeys: ["apiRoot"],
      hookChannel: true,
      credential: "apiToken",
    } satisfies ChannelConfigSpec;
    const dummy: ChatPlatform = {
      name: "dummychat",
      config: dummyConfig,
      label: "Dummy Chat",
      senderLabel: "dummyUserId",
      mode: "webhook",
      pairing: true,
      ingress: { defaultPath: "/dummychat", verification: "jwt", updateId: "id", webhook: async () => null },
      rateLimit: HTTP_429_RULE,
      inbound: () => ({}) as never,
      sender: async () => null,
    };
    const lists = channelConfigLists([...CHANNEL_CONFIGS, dummy.config]);
    // The credential that makes a channel "configured" in channels.status is one of its secrets.
    for (const spec of [...CHANNEL_CONFIGS, dummy.config])
      expect(Object.keys(spec.secrets), spec.name).toContain(spec.credential);
    expect(lists.schema.safeParse({ dummychat: { apiToken: "x" } }).success).toBe(true);
    expect(lists.secretKeys.dummychat).toEqual(["apiToken"]);
    expect(lists.secretNames["dummychat.apiToken"]).toBe("DUMMYCHAT_API_TOKEN");
    expect(lists.outboundUrlKeys).toContainEqual(["dummychat", "apiRoot"]);
    expect(lists.hookChannels).toContain("dummychat");
    const labels = adminLabels([...PLATFORMS, dummy]);
    expect(labels.channelLabels.dummychat).toBe("Dummy Chat");
    expect(labels.pairingChannels).toContain("dummychat");
    // Channels › Set up for free: its secrets asked, its URL to paste; its card listed as served.
    const setup = setupFor(dummy);
    expect(setup.fields.map((field) => field.key)).toEqual(["apiToken"]);
    expect(setup.webhook.kind).toBe("paste");
    const meta = catalogueMeta([...PLATFORMS, dummy]);
    expect(meta.find((card) => card.id === "dummychat")).toEqual({ id: "dummychat", label: "Dummy Chat" });
  });

  it("every served platform has Set up steps, and the Control UI's other catalogue cards are marked unserved", () => {
    for (const platform of PLATFORMS as readonly ChatPlatform[]) {
      const setup = setupFor(platform);
      expect(setup.fields.length, platform.name).toBeGreaterThan(0);
      // Each field is a key of the platform's config block.
      for (const field of setup.fields)
        expect(platform.config.schema.safeParse({ [field.key]: 1 }).success, `${platform.name}.${field.key}`).toBe(
          false,
        );
    }
    const meta = catalogueMeta(PLATFORMS as readonly ChatPlatform[]);
    const served = new Set<string>(CHANNEL_NAMES);
    for (const card of meta) {
      if (served.has(card.id)) expect(card).not.toHaveProperty("detailLabel");
      else expect(card).toMatchObject({ detailLabel: NOT_SERVED_DETAIL });
    }
    expect(meta.map((card) => card.id)).toEqual(expect.arrayContaining(["discord", "signal", "imessage", "nostr"]));
    // A descriptor without `setup` (LINE, Teams here): the keys its schema requires, then its secrets.
    const teams = (PLATFORMS as readonly ChatPlatform[]).find((platform) => platform.name === "msteams");
    if (teams && !teams.setup) {
      expect(setupFor(teams).fields.map((field) => [field.key, field.message])).toEqual([
        ["appId", "Enter Microsoft Teams app id"],
        ["appPassword", "Enter Microsoft Teams app password"],
      ]);
    }
    const line = (PLATFORMS as readonly ChatPlatform[]).find((platform) => platform.name === "line");
    if (line && !line.setup) expect(setupFor(line).fields[0]!.message).toBe("Enter LINE channel access token");
  });
});
