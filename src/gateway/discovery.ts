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
