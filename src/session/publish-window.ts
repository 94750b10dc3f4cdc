/**
 * When a session object sends its next index update to the tenant object. The tenant object
 * is the tenant's one funnel (about 1,000 requests/s per object on Cloudflare), so a session
 * nobody listens to sends at most one update per COLD_WINDOW_MS, while anything a listener or
 * a waiting caller needs goes at once.
 */

/** A session nobody listens to sends at most one update per this window (the index lags by at most this much). */
export const COLD_WINDOW_MS = 1_000;

/**
 * How long the tenant's "nobody listens" is trusted. Past it the answer is treated as unknown
 * (= someone listens): a session idle for a while sends its first update at once, so a client
 * that connected meanwhile waits for no window; during a continuous burst each update renews it.
 */
export const AUDIENCE_TTL_MS = 5_000;

/** The tenant's answer to an update: who would receive this session's next one. */
export type Audience = {
  /** Someone follows the session's messages (its subscribers, or `sessions.subscribe` watchers). */
  hot: boolean;
  /** Someone would receive its run events (`chat`/`agent` go to every connection allowed to read). */
  listening: boolean;
  /** When the tenant answered (ms). */
  at: number;
};

/** What waits to be sent. */
export type Pending = {
  /** A caller awaits the update (flush, an awaited emit). */
  urgent: boolean;
  /** Changes with a reason (create, patch, reset…): a caller waits for them. */
  reasons: number;
  /** Live events (run events, sessions.changed). */
  events: number;
};

/** The audience as far as it is known now: null when never answered or too old (= unknown). */
export function knownAudience(audience: Audience | null, now: number): Audience | null {
  if (!audience || now - audience.at >= AUDIENCE_TTL_MS) return null;
  return audience;
}

/**
 * Milliseconds to wait before sending: 0 (one timer turn, so the current burst joins) for a
 * waiting caller, a reason, a followed session, an unknown audience, or live events someone
 * would receive; else the cold window (plain appends and events nobody would receive).
 */
export function publishDelayMs(pending: Pending, audience: Audience | null, now: number): number {
  if (pending.urgent || pending.reasons > 0) return 0;
  const known = knownAudience(audience, now);
  if (!known || known.hot) return 0;
  if (pending.events > 0 && known.listening) return 0;
  return COLD_WINDOW_MS;
}

/** Whether a live event arriving during the cold window should cut it (someone would receive it). */
export function eventCutsWindow(audience: Audience | null, now: number): boolean {
  const known = knownAudience(audience, now);
  return !known || known.hot || known.listening;
}
