import { exports } from "cloudflare:workers";
import { beforeAll } from "vitest";

// The first request of a test file loads the worker: about 1 s on an idle machine, 8 s and
// more on the loaded 2-core box. Paid here, under its own budget, it no longer eats into the
// 20 s of whichever test happens to come first (which then timed out under load).
const WORKER_LOAD_BUDGET_MS = 120_000;

beforeAll(async () => {
  await (await exports.default.fetch("http://svc.test/health")).arrayBuffer();
}, WORKER_LOAD_BUDGET_MS);
