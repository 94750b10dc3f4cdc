import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

// Every test file here runs inside workerd with real Durable Objects and SQLite (pure modules are
// tested in Node: vitest.unit.config.ts, test/unit/).
const TEST_BINDINGS = {
  ADMIN_TOKEN: "test-admin-token",
  DEV_OPERATOR_TOKEN: "test-operator-token",
  RUN_TOKEN_SECRET: "test-run-token-secret",
  AUTH_GRANT_SECRET: "test-auth-grant-secret",
  // A fixed test key (never a real deployment's): docs/secrets.md.
  SECRET_STORE_KEY: "test1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",
  // Deployment model keys of the tests (docs/secrets.md): bound to the peers' host (or
  // elsewhere), granted by each test through the admin API; MODEL_KEY_LOCAL to the default
  // tenant by the dev grant.
  DEPLOYMENT_KEY_HOSTS: JSON.stringify({
    MODEL_KEY_TEST: ["127.0.0.1"],
    MODEL_KEY_NOT_SET: ["127.0.0.1"],
    MODEL_KEY_LOCAL: ["127.0.0.1"],
    MODEL_KEY_ELSEWHERE: ["api.example.com"],
  }),
  MODEL_KEY_TEST: "sk-test-deployment-0123456789abcdef",
  MODEL_KEY_ELSEWHERE: "sk-test-elsewhere-0123456789abcdef",
  DEV_DEPLOYMENT_KEY_GRANTS: "MODEL_KEY_LOCAL",
  // The test peers (mock models, webhook hosts) listen on 127.0.0.1 (docs/operations.md).
  OUTBOUND_ALLOW_LOOPBACK: "true",
  // `GATEWAY_HUB_SOCKETS=1 npx vitest run` runs every test with each socket past the
  // first of a tenant in a hub object of its own (docs/gateway.md, "Hubs").
  ...(process.env.GATEWAY_HUB_SOCKETS ? { GATEWAY_HUB_SOCKETS: process.env.GATEWAY_HUB_SOCKETS } : {}),
};

/** The worker as the tests run it, with `bindings` (the tests' secrets and vars). */
const workerd = (bindings: Record<string, string>) =>
  cloudflareTest({ wrangler: { configPath: "./wrangler.toml" }, miniflare: { bindings } });

// A deployment made without SECRET_STORE_KEY (docs/operations.md): files test/workerd/**/*.unconfigured.test.ts.
const { SECRET_STORE_KEY: _secretStoreKey, ...UNCONFIGURED_BINDINGS } = TEST_BINDINGS;

export default defineConfig({
  test: {
    projects: [
      {
        extends: true,
        plugins: [workerd(TEST_BINDINGS)],
        test: {
          name: "workerd",
          include: ["test/workerd/**/*.test.ts"],
          exclude: ["test/workerd/**/*.unconfigured.test.ts"],
        },
      },
      {
        extends: true,
        plugins: [workerd(UNCONFIGURED_BINDINGS)],
        test: { name: "unconfigured", include: ["test/workerd/**/*.unconfigured.test.ts"] },
      },
    ],
    // Three files at once: most of a file's time is waiting on peers, timers and sockets, so on
    // the 2-core dev machine the tier takes 3.5 min instead of 6.5 (docs/testing.md).
    maxWorkers: 3,
    // Each of the three workers keeps its workerd (and the worker's loaded modules) for every file
    // it runs, instead of a fresh one per file: starting workerd and loading the worker was half
    // the tier's time (2026-11-29: 1,292 s → 670 s at load 25; docs/testing.md). So storage outlives
    // a file: a test names its own tenants and sessions (a random id), never counts what others
    // left. `WORKERD_ISOLATE=1` gives every file a fresh workerd again (to rule a neighbour out).
    isolate: process.env.WORKERD_ISOLATE === "1",
    globalSetup: ["test/peers/global-setup.ts"],
    // Loads the worker before a file's first test (test/workerd/support/warm-worker.ts).
    setupFiles: ["test/workerd/support/warm-worker.ts"],
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
