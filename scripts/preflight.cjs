// Stops `npm run dev`, `npm test` and `npm run bench` early, with the fix, when Node is too old.
// CommonJS without newer syntax on purpose: it must run (and explain) on an old Node.
"use strict";

const REQUIRED = [22, 12, 0];

/** The problem with a Node version string ("v20.19.1"), or null when it is recent enough. */
function nodeVersionProblem(version) {
  const parts = String(version).replace(/^v/, "").split(".").map(Number);
  for (let i = 0; i < REQUIRED.length; i++) {
    const have = parts[i] || 0;
    if (have > REQUIRED[i]) return null;
    if (have < REQUIRED[i]) {
      return (
        "openclaw-sessions-edge needs Node.js " +
        REQUIRED.join(".") +
        " or newer (wrangler and vitest do); this is Node.js " +
        version +
        ".\n" +
        "Fix: `nvm install && nvm use` (reads .nvmrc), or install Node.js 24 from https://nodejs.org, then run the command again."
      );
    }
  }
  return null;
}

module.exports = { nodeVersionProblem: nodeVersionProblem, REQUIRED_NODE: REQUIRED.join(".") };

const problem = require.main === module ? nodeVersionProblem(process.version) : null;
if (problem) {
  console.error(problem);
  process.exit(1);
}
