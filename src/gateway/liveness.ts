import { TICK_INTERVAL_MS } from "../protocol/gateway";

/** A connection must complete `connect` within this (OpenClaw clients use 15 s). */
export const HANDSHAKE_TIMEOUT_MS = 15_000;

type Phase = { phase: "challenge" | "ready"; challengeTs: number };

/** True once a socket still in the challenge phase is past its handshake deadline. */
export function handshakeExpired(state: Phase, now: number): boolean {
  return state.phase === "challenge" && now - state.challengeTs >= HANDSHAKE_TIMEOUT_MS;
}

/**
 * What the tenant object's alarm does, decided from the connections alone: a tick to every
 * ready one, a close for every one past its handshake deadline, and the next alarm at the next
 * tick or deadline — none when nobody is left (the object may then stay asleep).
 */
export function planAlarm<C extends { state: Phase }>(
  connections: readonly C[],
  now: number,
): { tick: C[]; expired: C[]; nextAt: number | null } {
  const tick: C[] = [];
  const expired: C[] = [];
  let nextAt = now + TICK_INTERVAL_MS;
  for (const connection of connections) {
    if (connection.state.phase === "ready") tick.push(connection);
    else if (handshakeExpired(connection.state, now)) expired.push(connection);
    else nextAt = Math.min(nextAt, connection.state.challengeTs + HANDSHAKE_TIMEOUT_MS);
  }
  const waiting = connections.length - expired.length;
  return { tick, expired, nextAt: waiting > 0 ? nextAt : null };
}
