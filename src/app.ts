import { createApp as createHttpApp } from "./http/core-app";
import { SLICES } from "./slices";

/** The worker's HTTP app: the core routes (http/core-app.ts) with the feature slices' routes mounted in. */
export function createApp() {
  return createHttpApp(SLICES);
}
