import type { ChatPlatform } from "./platform";
import type { PlatformSetup } from "./platform-setup";

/**
 * A served platform whose descriptor declares no `setup` still gets one: the keys its config
 * requires and its secrets asked in turn ("Enter LINE channel access token"), then its webhook
 * URL to paste.
 */
export function setupFor(platform: ChatPlatform): PlatformSetup {
  if (platform.setup) return platform.setup;
  const keys = [
    ...new Set([...requiredKeys(platform), ...Object.keys(platform.config.secrets), platform.config.credential]),
  ];
  return {
    help: {
      title: `${platform.label} credentials`,
      lines: [`Have your ${platform.label} app's credentials at hand; the webhook URL to register follows.`],
    },
    fields: keys.map((key) => ({ key, message: `Enter ${platform.label} ${spoken(key)}` })),
    webhook: { kind: "paste", hint: `Register it as the webhook URL in your ${platform.label} app's settings.` },
  };
}

/** The keys of `channels.<name>` its schema cannot do without (Teams' `appId`). */
function requiredKeys(platform: ChatPlatform): string[] {
  const parsed = platform.config.schema.safeParse({});
  if (parsed.success) return [];
  return parsed.error.issues
    .filter((issue) => issue.code === "invalid_type" && issue.path.length === 1)
    .map((issue) => String(issue.path[0]));
}

/** `channelAccessToken` → "channel access token". */
const spoken = (key: string) => key.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
