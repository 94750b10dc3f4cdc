/** Methods listed for discovery (hello-ok's `features.methods`) but not served by this gateway. */
export const PENDING_METHODS: string[] = [];

/** The events hello-ok lists in `features.events`. */
export const EVENTS = [
  "connect.challenge",
  "tick",
  "health",
  "sessions.changed",
  "session.message",
  "chat",
  "agent",
  "config.changed",
];
