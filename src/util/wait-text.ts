/**
 * A wait as a person reads it, rounded up: "45 s" under two minutes, "12 min" under two hours,
 * else "5 h 3 min". A refusal's retry time in a message the Control UI shows as it is.
 */
export function waitText(waitMs: number): string {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  if (seconds < 120) return `${seconds} s`;
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 120) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
}
