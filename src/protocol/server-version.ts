/** This service's version as hello-ok and the Control UI's bootstrap config report it. */
export const SERVER_VERSION = "openclaw-sessions-edge/0.1.0";
