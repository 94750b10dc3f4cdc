// Layer guard (part of `npm run lint`): the dependency rule of docs/architecture.md, checked on
// the value imports between src/'s top-level folders (`import type` costs nothing at run time and
// is not counted). Fails naming each folder cycle and each engine file that imports upward.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const SRC = resolve("src");
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
/** A relative import or re-export with a value in it (`import type` / `export type` excluded). */
const VALUE_IMPORT = /^\s*(?:import|export)\s+(type\s+)?[^;]*?from\s+["'](\.[^"']+)["']/gms;
/** The Node tier must exercise the tool loop engine itself. */
const TOOL_LOOP_MODULE = /tool-loop\/tool-loop["']/;

function* files(dir, pattern) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path, pattern);
    else if (pattern.test(entry.name)) yield path;
  }
}

/** The top-level folder (or file, such as stubs.ts) of src/ a path is in. */
function layerOf(path) {
  return relative(SRC, path).split("/")[0];
}

const arrows = new Map(); // layer -> layers it imports
const upward = [];
for (const file of files(SRC, /(?<!\.d)\.ts$/)) {
  for (const [, typeOnly, specifier] of readFileSync(file, "utf8").matchAll(VALUE_IMPORT)) {
    if (typeOnly) continue;
    const target = resolve(dirname(file), specifier);
    if (!target.startsWith(SRC)) continue;
    const from = layerOf(file);
    const to = layerOf(target.endsWith(".ts") ? target : `${target}.ts`);
    if (from === to) continue;
    if (!arrows.has(from)) arrows.set(from, new Set());
    arrows.get(from).add(to);
    if (ENGINES.has(from) && UPPER.has(to)) upward.push(`${relative(".", file)} imports ${specifier} (${to})`);
  }
}

/** Folder cycles: the strongly connected groups of more than one folder (Tarjan). */
function cycles() {
  let next = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const visit = (layer) => {
    index.set(layer, next);
    low.set(layer, next++);
    stack.push(layer);
    onStack.add(layer);
    for (const to of arrows.get(layer) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(layer, Math.min(low.get(layer), low.get(to)));
      } else if (onStack.has(to)) low.set(layer, Math.min(low.get(layer), index.get(to)));
    }
    if (low.get(layer) !== index.get(layer)) return;
    const group = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      group.push(member);
    } while (member !== layer);
    if (group.length > 1) found.push(group.sort());
  };
  const layers = new Set([...arrows.keys(), ...[...arrows.values()].flatMap((to) => [...to])]);
  for (const layer of layers) if (!index.has(layer)) visit(layer);
  return found;
}

const problems = [];
for (const group of cycles())
  problems.push(`folder cycle {${group.join(", ")}}: break one arrow (a port, or a type/function moved down)`);
for (const line of upward)
  problems.push(`engine imports upward: ${line}; hand it in as a port where the object is assembled`);
const unitTests = existsSync("test/unit") ? [...files("test/unit", /\.(ts|mjs|js)$/)] : [];
if (!unitTests.some((file) => TOOL_LOOP_MODULE.test(readFileSync(file, "utf8"))))
  problems.push("no Node unit test (test/unit/) imports runs/tool-loop/tool-loop");

if (problems.length > 0) {
  for (const problem of problems) console.error(`layer guard: ${problem}`);
  process.exit(1);
}
