import type { ServerResponse } from "node:http";

/**
 * The six chat platforms' send APIs as one peer for the rate-limit tests
 * (test/workerd/channels/channel-rate-limits.test.ts), under `/ratelimit/<scenario>/<platform>/…`:
 * each platform's apiRoot (and Teams' serviceUrl, Teams' and Google Chat's token endpoints) points
 * here. The scenario's first send is refused as scripted (`POST /ratelimit/<scenario>/script`
 * `{status, headers, body}`: the platform's own rate-limit answer); every other call is answered
 * as the platform answers success. Every call is kept with the time this peer received it (its
 * own clock): `GET /ratelimit/<scenario>/calls`.
 */

/** `retryAfterDateInMs`: `Retry-After` as the HTTP date (whole seconds) that long after the refusal. */
type Refusal = { status: number; headers?: Record<string, string>; retryAfterDateInMs?: number; body: unknown };
export type RateLimitCall = {
  platform: string;
  path: string;
  body: any;
  send: boolean;
  status: number;
  at: number;
  /** The `Retry-After` a refusal carried. */
  retryAfter?: string;
};
type Scenario = { refusal?: Refusal; refused: boolean; calls: RateLimitCall[] };

const scenarios = new Map<string, Scenario>();

function scenarioOf(name: string): Scenario {
  let scenario = scenarios.get(name);
  if (!scenario) {
    scenario = { refused: false, calls: [] };
    scenarios.set(name, scenario);
  }
  return scenario;
}

/** Whether a call is one that posts a reply's part (not a token, typing, read receipt or lookup). */
function isSend(platform: string, method: string, path: string, body: any): boolean {
  if (platform === "telegram") return path.endsWith("/sendMessage");
  if (platform === "slack") return path.endsWith("/chat.postMessage");
  if (platform === "whatsapp") return path.endsWith("/messages") && body?.type === "text";
  if (platform === "line") return /\/v2\/bot\/message\/(push|reply)$/.test(path);
  if (platform === "msteams") return path.includes("/activities") && body?.type === "message";
  if (platform === "googlechat") return /\/messages/.test(path) && (method === "POST" || method === "PATCH");
  return false;
}

/** What the platform answers a call it accepts. */
function success(platform: string, path: string, at: number): [number, unknown] {
  if (path.endsWith("/token")) return [200, { access_token: `rl-token-${platform}`, expires_in: 3600 }];
  if (platform === "telegram") return [200, { ok: true, result: { message_id: at, date: 0, chat: { id: 0 } } }];
  if (platform === "slack")
    return [200, { ok: true, ts: `${at / 1000}`, team: "Fake Team", user_id: "U0BOT", bot_id: "B0BOT" }];
  if (platform === "whatsapp") return [200, { messaging_product: "whatsapp", messages: [{ id: `wamid.RL${at}` }] }];
  if (platform === "line") return [200, { sentMessages: [{ id: `${at}`, quoteToken: "q" }] }];
  if (platform === "msteams") return [201, { id: `activity-${at}` }];
  return [200, { name: path.replace(/^\/v1\//, "").split("?")[0] }];
}

/** Answers a request under `/ratelimit/`; returns false for another path. */
export function rateLimitPeer(req: { method?: string }, url: URL, raw: string, res: ServerResponse): boolean {
  const match = /^\/ratelimit\/([^/]+)\/([^/]+)(\/.*)?$/.exec(url.pathname);
  if (!match) return false;
  const [, name, platform, rest = ""] = match;
  const scenario = scenarioOf(name!);
  const reply = (status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(body));
    return true;
  };
  if (platform === "script") {
    scenario.refusal = JSON.parse(raw) as Refusal;
    return reply(200, { ok: true });
  }
  if (platform === "calls") return reply(200, scenario.calls);
  const at = Date.now();
  const method = req.method ?? "GET";
  let body: any = raw;
  try {
    body = raw ? JSON.parse(raw) : {};
  } catch {
    body = Object.fromEntries(new URLSearchParams(raw));
  }
  const path = `${rest}${url.search}`;
  const send = isSend(platform!, method, rest, body);
  if (send && scenario.refusal && !scenario.refused) {
    scenario.refused = true;
    const { status, body: refusalBody, retryAfterDateInMs } = scenario.refusal;
    const headers = { ...scenario.refusal.headers };
    if (retryAfterDateInMs !== undefined)
      headers["retry-after"] = new Date(Math.ceil((at + retryAfterDateInMs) / 1_000) * 1_000).toUTCString();
    const retryAfter = headers["retry-after"];
    scenario.calls.push({ platform: platform!, path, body, send, status, at, ...(retryAfter ? { retryAfter } : {}) });
    return reply(status, refusalBody, headers);
  }
  const [status, answer] = success(platform!, rest, at);
  scenario.calls.push({ platform: platform!, path, body, send, status, at });
  return reply(status, answer);
}
