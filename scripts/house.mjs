// The house at a glance (`npm run house`): the figures an architecture step is judged by —
// size, folder arrows and cycles, the largest files, repeated file names, the Durable Object
// classes' lengths and how widely one tool's name is spread. Prints; never fails.
import { readFileSync } from "node:fs";
import { basename, relative } from "node:path";
import { cycles, folderImports, SRC, sourceFiles } from "./lib/source-graph.mjs";

const LARGEST_SHOWN = 10;
/** A tool's name spread over many files means its description is too. */
const SAMPLE_TOOL = "sessions_history";

const sources = sourceFiles().map((path) => {
  const text = readFileSync(path, "utf8");
  return { path: relative(SRC, path), lines: text.split("\n").length - 1, text };
});
const { arrows } = folderImports();
const arrowCount = [...arrows.values()].reduce((sum, to) => sum + to.size, 0);
const byName = Map.groupBy(sources, ({ path }) => basename(path));
const repeated = [...byName].filter(([, group]) => group.length > 1).map(([name]) => name);

const rows = [
  ["src files / lines", `${sources.length} / ${sources.reduce((sum, file) => sum + file.lines, 0)}`],
  ["top-level folders", `${new Set(sources.map(({ path }) => path.split("/")[0])).size}`],
  ["folder arrows (value imports)", `${arrowCount}`],
  [
    "folder cycles",
    cycles(arrows)
      .map((group) => `{${group.join(", ")}}`)
      .join(" ") || "none",
  ],
  ["repeated file names", `${repeated.length}: ${repeated.sort().join(" ")}`],
  [`files naming ${SAMPLE_TOOL}`, `${sources.filter(({ text }) => text.includes(SAMPLE_TOOL)).length}`],
  [
    "Durable Object classes (lines)",
    sources
      .filter(({ path }) => path.endsWith("-object.ts"))
      .map(({ path, lines }) => `${basename(path, ".ts")} ${lines}`)
      .join(", "),
  ],
];
for (const [label, value] of rows) console.log(`${label.padEnd(32)} ${value}`);
console.log(`largest files:`);
for (const { path, lines } of sources.toSorted((a, b) => b.lines - a.lines).slice(0, LARGEST_SHOWN))
  console.log(`  ${String(lines).padStart(5)}  src/${path}`);
