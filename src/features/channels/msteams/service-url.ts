/**
 * Which Bot Connector a reply may go to. The serviceUrl comes from the inbound activity and the
 * reply carries the bot's access token, so a tenant's config or a forged activity must not steer
 * that token to another host: only Microsoft's Bot Connector hosts, or the origin of the tenant's
 * configured `apiRoot` (a fake, a sovereign cloud), and only over https (http for loopback fakes,
 * which the outbound guard then judges). Pure; the outbound guard still checks every request.
 */

/** Microsoft's Bot Connector domains (public, GCC, sovereign clouds) and their subdomains. */
export const BOT_CONNECTOR_HOST_SUFFIXES = [
  "botframework.com",
  "botframework.us",
  "botframework.azure.us",
  "teams.microsoft.com",
  "teams.microsoft.us",
] as const;
/** Exact hosts: Teams' public Bot Connector (its domain, trafficmanager.net, names any Azure customer's). */
export const BOT_CONNECTOR_HOSTS = ["smba.trafficmanager.net"] as const;

export type ServiceUrlVerdict = { ok: true; url: URL } | { ok: false; reason: string };

export function checkServiceUrl(serviceUrl: string, apiRoot?: string): ServiceUrlVerdict {
  let url: URL;
  try {
    url = new URL(serviceUrl);
  } catch {
    return { ok: false, reason: "serviceUrl is not a URL" };
  }
  if (url.username || url.password) return { ok: false, reason: "serviceUrl carries credentials" };
  if (apiRoot) {
    const root = new URL(apiRoot);
    if (url.origin === root.origin) return { ok: true, url };
  }
  if (url.protocol !== "https:") return { ok: false, reason: `serviceUrl ${url.origin} is not https` };
  const host = url.hostname.toLowerCase();
  const microsoft =
    (BOT_CONNECTOR_HOSTS as readonly string[]).includes(host) ||
    BOT_CONNECTOR_HOST_SUFFIXES.some((suffix) => host === suffix || host.endsWith(`.${suffix}`));
  if (!microsoft) return { ok: false, reason: `serviceUrl host ${host} is not a Bot Connector` };
  return { ok: true, url };
}
