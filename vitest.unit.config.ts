import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// The Node tier: pure modules (policy, keys, sanitizing, prompts, schedules, planners) and the
// engines over in-memory ports (the session's stores on node:sqlite, test/unit/support/), without
// the Workers runtime, in seconds. Anything that needs a Durable Object's RPC, hibernation,
// eviction, a WebSocket or `cloudflare:*` belongs in test/workerd/**/*.test.ts (vitest.config.ts, in workerd).
export default defineConfig({
  // Modules that import the runtime's base classes (to compose the feature slices, src/slices.ts).
  resolve: {
    alias: { "cloudflare:workers": fileURLToPath(new URL("test/unit/shims/cloudflare-workers.ts", import.meta.url)) },
  },
  test: {
    include: ["test/unit/**/*.test.ts"],
    environment: "node",
    // Transformed, so the alias above applies to its import too.
    server: { deps: { inline: ["@cloudflare/workers-oauth-provider"] } },
  },
});
