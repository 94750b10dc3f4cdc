// Size guard (part of `npm run lint`): Durable Object classes stay thin and the README stays a
// door. Fails naming the file and its line count when a limit is passed.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** A Durable Object class is wiring plus RPC methods that delegate. */
const OBJECT_MAX_LINES = 300;
/** The README is the front door; the reference lives in docs/. */
const README_MAX_LINES = 350;

const lineCount = (path) => readFileSync(path, "utf8").split("\n").length - 1;

function* objectFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* objectFiles(path);
    else if (entry.name.endsWith("-object.ts")) yield path;
  }
}

const problems = [];
for (const path of objectFiles("src")) {
  const lines = lineCount(path);
  if (lines > OBJECT_MAX_LINES)
    problems.push(
      `${path}: ${lines} lines (a Durable Object class stays <= ${OBJECT_MAX_LINES}; move rules into a named module)`,
    );
}
const readme = lineCount("README.md");
if (readme > README_MAX_LINES)
  problems.push(`README.md: ${readme} lines (<= ${README_MAX_LINES}; the reference belongs in docs/)`);

if (problems.length > 0) {
  for (const problem of problems) console.error(`size guard: ${problem}`);
  process.exit(1);
}
