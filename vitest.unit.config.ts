import { defineConfig } from "vitest/config";

// The Node tier: pure modules (policy, keys, sanitizing, prompts, schedules, planners) tested
// without the Workers runtime, in seconds. Anything that needs a Durable Object, SQLite, a
// WebSocket or `cloudflare:*` belongs in test/*.test.ts (vitest.config.ts, inside workerd).
export default defineConfig({
  test: {
    include: ["test/unit/**/*.test.ts"],
    environment: "node",
  },
});
