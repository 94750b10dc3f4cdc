// Layer guard (part of `npm run lint`): the dependency rule of docs/architecture.md, checked on
// the value imports between src/'s top-level folders. Fails naming each folder cycle and each
// engine file that imports upward.
import { existsSync, readFileSync } from "node:fs";
import { relative } from "node:path";
import { cycles, files, folderImports } from "./lib/source-graph.mjs";

/** The engines: they run sessions, runs and deliveries and see the rest through ports. */
const ENGINES = new Set(["runs", "flows", "spawn", "delivery", "timers", "pending"]);
/** The application and transport layers (and the stubs that reach other objects). */
const UPPER = new Set([
  "domain",
  "tools",
  "gateway",
  "http",
  "openai",
  "mcp",
  "oauth",
  "features",
  "slices.ts",
  "stubs.ts",
]);
/** The Node tier must exercise the tool loop engine itself. */
const TOOL_LOOP_MODULE = /tool-loop\/tool-loop["']/;

const { arrows, edges } = folderImports();
const problems = [];
for (const group of cycles(arrows))
  problems.push(`folder cycle {${group.join(", ")}}: break one arrow (a port, or a type/function moved down)`);
for (const { file, specifier, from, to } of edges)
  if (ENGINES.has(from) && UPPER.has(to))
    problems.push(
      `engine imports upward: ${relative(".", file)} imports ${specifier} (${to}); hand it in as a port where the object is assembled`,
    );
const unitTests = existsSync("test/unit") ? [...files("test/unit", /\.(ts|mjs|js)$/)] : [];
if (!unitTests.some((file) => TOOL_LOOP_MODULE.test(readFileSync(file, "utf8"))))
  problems.push("no Node unit test (test/unit/) imports runs/tool-loop/tool-loop");

if (problems.length > 0) {
  for (const problem of problems) console.error(`layer guard: ${problem}`);
  process.exit(1);
}
