import type { ChatPlatform } from "./platform";
import type { PlatformSetup } from "./platform-setup";

/**
 * A served platform whose descriptor declares no `setup` still gets one: its secrets asked in
 * turn, then its webhook URL to paste (the config write names any key still missing).
 */
export function setupFor(platform: ChatPlatform): PlatformSetup {
  if (platform.setup) return platform.setup;
  const keys = [...new Set([...Object.keys(platform.config.secrets), platform.config.credential])];
  return {
    help: {
      title: `${platform.label} credentials`,
      lines: [`Have your ${platform.label} app's credentials at hand; the webhook URL to register follows.`],
    },
    fields: keys.map((key) => ({ key, message: `Enter ${platform.label} ${key}` })),
    webhook: { kind: "paste", hint: `Register it as the webhook URL in your ${platform.label} app's settings.` },
  };
}
