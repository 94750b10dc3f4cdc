// `npm run typecheck`'s first step: is worker-configuration.d.ts (the Env type) what
// `wrangler types` makes of wrangler.toml now? On a Node outside package.json's engines range this
// one step is skipped with a notice, so the TypeScript and import-cycle checks that follow still
// run (they need no wrangler).
"use strict";

const { spawnSync } = require("node:child_process");
const { nodeVersionProblem, NODE_RANGE } = require("./preflight.cjs");

if (nodeVersionProblem(process.version)) {
  console.warn(
    "[typecheck] skipped the Env check (wrangler types --check needs Node.js " +
      NODE_RANGE +
      ", this is " +
      process.version +
      "); the TypeScript and import-cycle checks still run.",
  );
  process.exit(0);
}
const result = spawnSync(
  "npx",
  ["wrangler", "types", "--include-runtime=false", "--env-file", ".dev.vars.example", "--check"],
  { stdio: "inherit" },
);
process.exit(result.status === null ? 1 : result.status);
