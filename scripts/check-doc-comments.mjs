// Doc comment guard (part of `npm run lint`): a `/** … */` documents the declaration right below
// it, so editors and readers attach it there. Fails on a doc comment that documents nothing:
// - stacked: directly followed by another doc comment (only the last one is the declaration's);
// - orphaned: a blank line between it and what follows, except the file's own header (a doc
//   comment with nothing but imports and re-exports above it).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** A doc comment, the line break after it, any blank lines, then the next line. */
const DOC_COMMENT = /\/\*\*(?:(?!\*\/)[\s\S])*\*\/[ \t]*\n((?:[ \t]*\n)*)([^\n]*)/g;
/** What may stand above a file's header comment. */
const PREAMBLE =
  /\/\*[\s\S]*?\*\/|\/\/[^\n]*|^\s*import\b[^;]*;|^\s*export\s+(?:type\s+)?(?:\*|\{[^}]*\})(?:\s+from\s+["'][^"']+["'])?\s*;/gm;

function* sourceFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) yield path;
  }
}

const problems = [];
for (const path of sourceFiles("src")) {
  const text = readFileSync(path, "utf8");
  for (const match of text.matchAll(DOC_COMMENT)) {
    const [, blankLines, nextLine] = match;
    const line = text.slice(0, match.index).split("\n").length;
    const isHeader = () => text.slice(0, match.index).replace(PREAMBLE, "").trim() === "";
    if (blankLines === "" && nextLine.trim().startsWith("/**"))
      problems.push(
        `${path}:${line}: stacked doc comment (merge it into the one below, or move it to what it describes)`,
      );
    else if (blankLines !== "" && !isHeader())
      problems.push(
        `${path}:${line}: orphaned doc comment (a blank line parts it from what follows; attach it or make it a // comment)`,
      );
  }
}

if (problems.length > 0) {
  for (const problem of problems) console.error(`doc comment guard: ${problem}`);
  process.exit(1);
}
