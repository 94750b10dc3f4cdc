// The import graph of src/ between its top-level folders, read as text: shared by the layer guard
// (scripts/check-layers.mjs) and the house report (scripts/house.mjs).
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

export const SRC = resolve("src");
/** A relative import or re-export; group 1 is `type` when it carries no value. */
const RELATIVE_IMPORT = /^\s*(?:import|export)\s+(type\s+)?[^;]*?from\s+["'](\.[^"']+)["']/gms;

/** Every file below `dir` whose name matches `pattern`. */
export function* files(dir, pattern) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path, pattern);
    else if (pattern.test(entry.name)) yield path;
  }
}

/** The top-level folder (or file, such as stubs.ts) of src/ a path is in. */
export const layerOf = (path) => relative(SRC, path).split("/")[0];

/** src/'s TypeScript sources (declaration files left out). */
export const sourceFiles = () => [...files(SRC, /(?<!\.d)\.ts$/)];

/**
 * The value imports between folders (`import type` costs nothing at run time and is not counted):
 * `arrows` maps a folder to the folders it imports, `edges` lists each importing file.
 */
export function folderImports() {
  return importsBetween(layerOf);
}

/** The feature folder (`features/<name>`) a path is in, or null outside src/features/<name>/. */
export const featureOf = (path) => {
  const [top, name, ...rest] = relative(SRC, path).split("/");
  return top === "features" && rest.length > 0 ? `features/${name}` : null;
};

/** The value imports from one feature folder into another (the guard allows none). */
export function featureImports() {
  return importsBetween(featureOf);
}

/** Value imports between the units `unitOf` names (null: not a unit), as arrows and edges. */
function importsBetween(unitOf) {
  const arrows = new Map();
  const edges = [];
  for (const file of sourceFiles()) {
    const from = unitOf(file);
    if (from === null) continue;
    for (const [, typeOnly, specifier] of readFileSync(file, "utf8").matchAll(RELATIVE_IMPORT)) {
      if (typeOnly) continue;
      const target = resolve(dirname(file), specifier);
      if (!target.startsWith(SRC)) continue;
      const to = unitOf(target.endsWith(".ts") ? target : `${target}.ts`);
      if (to === null || from === to) continue;
      if (!arrows.has(from)) arrows.set(from, new Set());
      arrows.get(from).add(to);
      edges.push({ file, specifier, from, to });
    }
  }
  return { arrows, edges };
}

/** The strongly connected groups of more than one folder (Tarjan): each is a folder cycle. */
export function cycles(arrows) {
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
