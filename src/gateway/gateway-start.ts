/** The storage key of when this object's gateway first served (ms since the epoch). */
const GATEWAY_STARTED_AT_KEY = "gateway.startedAt";

/**
 * When this object's gateway first served, kept in its storage: an object restarts at every
 * wake-up from hibernation or eviction, so a clock taken at construction made the Control UI's
 * uptime restart too (16 s, 120 s, then 3 s). The tenant's gateway is up for as long as the
 * object exists: it wakes on the next frame.
 */
export function gatewayStartedAt(storage: DurableObjectStorage, now = Date.now()): number {
  const kept = storage.kv.get<number>(GATEWAY_STARTED_AT_KEY);
  if (typeof kept === "number" && kept <= now) return kept;
  storage.kv.put(GATEWAY_STARTED_AT_KEY, now);
  return now;
}
