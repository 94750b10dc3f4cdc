// Stops `npm run dev`, `npm test` and `npm run bench` early, with the fix, when Node is outside
// the range package.json's `engines.node` names (the one place the range is stated; `npm install`
// itself stops at once through `engine-strict` in .npmrc), or (not for `--node-only`) when
// node_modules is missing or older than package-lock.json.
// CommonJS without newer syntax on purpose: it must run (and explain) on an old Node, and before
// any dependency is installed (so no `semver`).
"use strict";

const fs = require("node:fs");
const path = require("node:path");

const ROOT = path.join(__dirname, "..");
const NODE_RANGE = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")).engines.node;

function parseVersion(version) {
  const parts = String(version).trim().replace(/^v/, "").split(/[.+-]/).slice(0, 3).map(Number);
  return [parts[0] || 0, parts[1] || 0, parts[2] || 0];
}

function compareVersions(a, b) {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}

/** Whether a version satisfies a range of `||`-joined sets of `>=`, `>`, `<=`, `<`, `=` comparators. */
function satisfiesRange(version, range) {
  const have = parseVersion(version);
  return range.split("||").some((set) =>
    set
      .trim()
      .split(/\s+/)
      .every((comparator) => {
        const match = /^(>=|<=|>|<|=)?\s*v?(\d+(?:\.\d+){0,2})$/.exec(comparator);
        if (!match) throw new Error(`preflight: unsupported comparator ${comparator} in ${range}`);
        const order = compareVersions(have, parseVersion(match[2]));
        switch (match[1] || "=") {
          case ">=":
            return order >= 0;
          case ">":
            return order > 0;
          case "<=":
            return order <= 0;
          case "<":
            return order < 0;
          default:
            return order === 0;
        }
      }),
  );
}

/** The problem with a Node version string ("v20.19.1"), or null when it is in NODE_RANGE. */
function nodeVersionProblem(version) {
  if (satisfiesRange(version, NODE_RANGE)) return null;
  return (
    "openclaw-sessions-edge needs Node.js " +
    NODE_RANGE +
    " (the openclaw devDependency, which brings the Control UI and the CLI the tests drive, does); this is Node.js " +
    version +
    ".\n" +
    "Fix: `nvm install && nvm use` (reads .nvmrc), or install Node.js 24 from https://nodejs.org, then run the command again."
  );
}

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (_error) {
    return null;
  }
}

function mtimeMs(file) {
  try {
    return fs.statSync(file).mtimeMs;
  } catch (_error) {
    return null;
  }
}

/** The lock's packages whose installed record (npm's hidden lockfile) is absent or another version. */
function lockDifferences(lock, installed) {
  const wanted = lock?.packages || {};
  const have = installed?.packages || {};
  return Object.keys(wanted).filter((key) => {
    const entry = wanted[key];
    // "" is the project itself; optional entries (other platforms' binaries) may rightly be absent.
    if (key === "" || key.indexOf("node_modules/") !== 0 || entry.optional || entry.link) return false;
    return !have[key] || have[key].version !== entry.version;
  });
}

/**
 * The problem with the installed dependencies under `root`, or null: node_modules absent, a direct
 * dependency of package.json not installed, or package-lock.json changed since the last install.
 * A lock only touched (a checkout that left its content alone) is not stale: the versions it
 * names are compared with what npm recorded installing (node_modules/.package-lock.json).
 */
function dependencyProblem(root) {
  const fix = "Fix: run `npm install`, then run the command again.";
  const modules = path.join(root, "node_modules");
  if (!fs.existsSync(modules)) return `node_modules is missing: the dependencies are not installed.\n${fix}`;
  const manifest = readJson(path.join(root, "package.json")) || {};
  const names = Object.keys(Object.assign({}, manifest.dependencies, manifest.devDependencies));
  const missing = names.filter((name) => !fs.existsSync(path.join(modules, name, "package.json")));
  if (missing.length > 0) {
    return (
      "dependencies missing from node_modules (an install that failed or did not run): " +
      missing.slice(0, 8).join(", ") +
      (missing.length > 8 ? ` and ${missing.length - 8} more` : "") +
      ".\n" +
      fix
    );
  }
  const lockFile = path.join(root, "package-lock.json");
  const installedFile = path.join(modules, ".package-lock.json");
  const lockTime = mtimeMs(lockFile);
  if (lockTime === null) return null;
  const installedTime = mtimeMs(installedFile);
  if (installedTime !== null && lockTime <= installedTime) return null;
  const changed = lockDifferences(readJson(lockFile), readJson(installedFile));
  if (installedTime !== null && changed.length === 0) return null;
  return (
    "node_modules is older than package-lock.json" +
    (changed.length > 0
      ? ` (${changed.length} packages differ, e.g. ${changed[0].replace(/^.*node_modules\//, "")})`
      : "") +
    ".\n" +
    fix
  );
}

module.exports = {
  nodeVersionProblem: nodeVersionProblem,
  dependencyProblem: dependencyProblem,
  satisfiesRange: satisfiesRange,
  NODE_RANGE: NODE_RANGE,
};

if (require.main === module) {
  let problem = nodeVersionProblem(process.version);
  if (!problem && process.argv.indexOf("--node-only") < 0) problem = dependencyProblem(ROOT);
  if (problem) {
    console.error(problem);
    process.exit(1);
  }
}
