import { hookIngress } from "./hooks/hook-routes";
import { type AppSlices, createApp as createHttpApp } from "./http/app";
import { mcpRoutes } from "./mcp/http";
import { openAiRoutes } from "./openai/routes";

/** The slices built on http/'s toolkit, composed here so that http/ imports none of them. */
export const APP_SLICES: AppSlices = {
  mcp: mcpRoutes,
  openAi: openAiRoutes,
  hookIngress,
};

/** The worker's HTTP app: the core routes (http/app.ts) with the slices mounted in. */
export function createApp() {
  return createHttpApp(APP_SLICES);
}
