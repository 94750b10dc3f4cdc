// The feature move (issue 49, docs/architecture.md "The feature folders"): `git mv` every path the
// mapping (scripts/move/feature-map.mjs) names to its new home, then rewrite what pointed at the
// old places so everything resolves again: relative specifiers in code (imports, re-exports,
// `import()`, `require()`, `new URL(…, import.meta.url)`, `join(HERE, "…")`, `?raw` fixtures),
// repository paths in any text (`src/…`, `test/…`, `](../src/…)` links, wrangler.toml, configs),
// src-relative paths in backticks (`cron/jobs.ts`), and the mapping's literal edits (globs).
// A path the mapping does not name stays where it is, so files added after the mapping was
// written keep working. Idempotent: a second run finds nothing to move and changes nothing.
//
//   node scripts/move/move-features.mjs [--dry-run] [--no-format]
//
// Refuses on a dirty tree (its changes are then exactly the move; `git reset --hard` undoes it).
// Ends with `biome check --write` on the files it changed (import order and line wrapping shift
// with the new paths) and prints what the layer guard still names that no longer exists.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, posix, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { fallbackMove, MOVES, TEXT_EDITS } from "./feature-map.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const args = new Set(process.argv.slice(2));
const dryRun = args.has("--dry-run");
const startedAt = Date.now();

const git = (...gitArgs) => execFileSync("git", gitArgs, { cwd: ROOT, encoding: "utf8", maxBuffer: 64 << 20 });

if (!dryRun && git("status", "--porcelain").trim() !== "") {
  console.error(
    "move-features: the working tree is not clean; commit or stash first (the move must be its own change)",
  );
  process.exit(1);
}

/** Every tracked file, repository-relative with forward slashes. */
const tracked = git("ls-files", "-z").split("\0").filter(Boolean);
const trackedSet = new Set(tracked);

// 1. The plan: each tracked file under a mapped path gets the most specific entry's destination.
/** `[from, to]` with folders ending in "/", longest `from` first so a file entry beats its folder. */
const entries = MOVES.map(([from, to]) => [from, to]).sort((a, b) => b[0].length - a[0].length);
for (const [from, to] of entries)
  if (from.endsWith("/") !== to.endsWith("/"))
    throw new Error(`feature-map: ${from} → ${to}: a folder maps to a folder`);

/** old path → new path, for the files that move in this run. */
const moves = new Map();
for (const file of tracked) {
  const entry = entries.find(([from]) => (from.endsWith("/") ? file.startsWith(from) : file === from));
  if (!entry) {
    const fallback = fallbackMove(file);
    if (fallback === undefined) continue;
    console.log(
      `not in the mapping, by its name: ${file} → ${fallback}${fallback.includes("/unsorted/") ? " (place it)" : ""}`,
    );
    moves.set(file, fallback);
    continue;
  }
  const [from, to] = entry;
  const target = from.endsWith("/") ? to + file.slice(from.length) : to;
  if (target !== file) moves.set(file, target);
}
// An entry that names nothing now: done by an earlier run (its destination exists), or a path gone.
for (const [from, to] of entries) {
  const matches = (file, path) => (path.endsWith("/") ? file.startsWith(path) : file === path);
  if (tracked.some((file) => matches(file, from))) continue;
  const done = tracked.some((file) => matches(file, to));
  console.log(`${done ? "already moved" : "not found, skipped"}: ${from} → ${to}`);
}
const problems = [];
const destinations = new Map();
for (const [from, to] of moves) {
  if (trackedSet.has(to) && !moves.has(to)) problems.push(`${from} → ${to}: the destination exists`);
  if (destinations.has(to)) problems.push(`${from} and ${destinations.get(to)} both → ${to}`);
  destinations.set(to, from);
}
if (problems.length > 0) {
  for (const problem of problems) console.error(`move-features: ${problem}`);
  process.exit(1);
}
const newPath = (file) => moves.get(file) ?? file;
/** Folders whose every tracked file moves under one new folder (named so in docs and globs). */
const folderMoves = new Map();
for (const [from, to] of entries) {
  if (!from.endsWith("/")) continue;
  const inside = tracked.filter((file) => file.startsWith(from));
  if (inside.length > 0 && inside.every((file) => newPath(file) === to + file.slice(from.length)))
    folderMoves.set(from, to);
}

// 2. The rewrites, computed against the old tree before anything moves.
const CODE = /\.(?:ts|mts|cts|mjs|js|cjs)$/;
const TEXT = /\.(?:ts|mts|cts|mjs|js|cjs|json|jsonc|md|toml|yaml|yml|html|css|sql|txt)$/;
/** Where paths are rewritten: the code, its docs and the root's configs (not this script's own mapping). */
const SCANNED = /^(?!scripts\/move\/)(?:src|test|bench|scripts|docs)\/|^[^/]+$/;
/** A relative specifier in a code file: group 1 the quote, group 2 the path, group 3 a `?query`. */
const RELATIVE_STRING = /(["'`])(\.\.?\/[^"'`?\s]*)(\?[^"'`\s]*)?\1/g;
/** A repository path in any text, maybe behind `./` or `../` steps (docs links). */
const REPO_PATH = /(?<![\w@$.-])((?:\.\.?\/)*)((?:src|test|bench|scripts|docs)\/[\w.\-/[\]*]*[\w\-/*\]])/g;
/** A src-relative path in backticks (`cron/jobs.ts`, `cron/`), as the docs write them. */
const SRC_RELATIVE = /`([a-z][\w-]*\/[\w.\-/]*)`/g;
const RESOLVE_SUFFIXES = ["", ".ts", ".d.ts", ".mjs", ".js", "/index.ts", "/index.mjs"];

/** The tracked file a specifier written in `importer` means, or undefined. */
function resolveSpecifier(importer, specifier) {
  const base = posix.normalize(posix.join(posix.dirname(importer), specifier));
  for (const suffix of RESOLVE_SUFFIXES) if (trackedSet.has(base + suffix)) return { file: base + suffix, suffix };
  if (base.endsWith(".js") && trackedSet.has(base.replace(/\.js$/, ".ts")))
    return { file: base.replace(/\.js$/, ".ts"), suffix: "js→ts" };
  return undefined;
}

/** `specifier` rewritten for the importer's and the target's new places, in the same style. */
function rewriteSpecifier(importer, specifier) {
  const resolved = resolveSpecifier(importer, specifier);
  if (!resolved) return specifier;
  const { file, suffix } = resolved;
  if (!moves.has(file) && !moves.has(importer)) return specifier;
  const target = newPath(file);
  let written = target;
  if (suffix === "js→ts") written = target.replace(/\.ts$/, ".js");
  else if (suffix !== "") written = target.slice(0, target.length - suffix.length);
  let next = posix.relative(posix.dirname(newPath(importer)), written);
  if (!next.startsWith(".")) next = `./${next}`;
  if (specifier.endsWith("/") && !next.endsWith("/")) next += "/";
  return next;
}

/** A repository path (file or whole moved folder) at its new place, or undefined. */
function movedRepoPath(path) {
  const clean = path.replace(/\/$/, "");
  if (moves.has(clean)) return moves.get(clean);
  for (const suffix of [".ts", ".mjs"])
    if (moves.has(clean + suffix)) return moves.get(clean + suffix).slice(0, -suffix.length);
  const folder = `${clean}/`;
  if (folderMoves.has(folder))
    return path.endsWith("/") ? folderMoves.get(folder) : folderMoves.get(folder).slice(0, -1);
  return undefined;
}

function rewriteText(file, text) {
  let out = text;
  if (CODE.test(file))
    out = out.replace(RELATIVE_STRING, (whole, quote, specifier, query = "") => {
      const next = rewriteSpecifier(file, specifier);
      return next === specifier ? whole : `${quote}${next}${query}${quote}`;
    });
  out = out.replace(REPO_PATH, (whole, steps, path) => {
    // `../src/x.ts` from docs/ is the repository path src/x.ts; a bare `src/x.ts` is one already.
    // In code a relative path was handled above (it is relative to the file, which may move).
    if (steps && CODE.test(file)) return whole;
    const repoPath = steps ? posix.normalize(posix.join(posix.dirname(file), steps + path)) : path;
    if (steps && repoPath !== path) return whole;
    const moved = movedRepoPath(repoPath);
    return moved === undefined ? whole : steps + moved;
  });
  out = out.replace(SRC_RELATIVE, (whole, path) => {
    const moved = movedRepoPath(`src/${path}`);
    return moved?.startsWith("src/") ? `\`${moved.slice(4)}\`` : whole;
  });
  for (const edit of TEXT_EDITS)
    if (edit.file === "*" || edit.file === newPath(file) || edit.file === file)
      out = out.split(edit.from).join(edit.to);
  return out;
}

const rewritten = new Map();
for (const file of tracked) {
  if (!SCANNED.test(file) || !TEXT.test(file) || !existsSync(join(ROOT, file))) continue;
  const text = readFileSync(join(ROOT, file), "utf8");
  const next = rewriteText(file, text);
  if (next !== text) rewritten.set(newPath(file), next);
}

// 3. The move itself, then the rewritten contents at the new places.
const byTarget = [...moves].sort((a, b) => a[0].localeCompare(b[0]));
for (const [from, to] of byTarget) {
  console.log(`${dryRun ? "would move" : "moved"} ${from} → ${to}`);
  if (dryRun) continue;
  mkdirSync(dirname(join(ROOT, to)), { recursive: true });
  git("mv", from, to);
}
for (const [file, text] of rewritten) {
  if (!dryRun) writeFileSync(join(ROOT, file), text);
}
const changedFiles = [...rewritten.keys()];
console.log(`${dryRun ? "would rewrite" : "rewrote"} ${changedFiles.length} files' paths`);
for (const file of changedFiles) if (!moves.has(destinations.get(file) ?? "")) console.log(`  rewrote ${file}`);

// 4. Formatting: longer or shorter paths reorder imports and rewrap lines.
const formatted = changedFiles.filter((file) => /\.(?:ts|mjs|js|cjs|json)$/.test(file) && !file.startsWith("docs/"));
const biome = join(ROOT, "node_modules/.bin/biome");
if (!dryRun && !args.has("--no-format") && formatted.length > 0 && existsSync(biome)) {
  try {
    execFileSync(biome, ["check", "--write", "--no-errors-on-unmatched", ...formatted], { cwd: ROOT, stdio: "pipe" });
  } catch (error) {
    console.log(`biome check --write left problems (see npm run lint):\n${String(error.stdout ?? "").slice(0, 2000)}`);
  }
}

// 5. What the layer guard names that is gone, and the new top-level entries it must place.
const topLevel = (files) => new Set(files.filter((f) => f.startsWith("src/")).map((f) => f.split("/")[1]));
const before = topLevel(tracked);
const after = topLevel(tracked.map(newPath));
const gone = [...before].filter((entry) => !after.has(entry));
const added = [...after].filter((entry) => !before.has(entry));
if (gone.length + added.length > 0) {
  console.log(`src/ top-level entries gone: ${gone.join(", ") || "none"}; new: ${added.join(", ") || "none"}`);
  const layerScript = join(ROOT, "scripts/check-layers.mjs");
  if (existsSync(layerScript)) {
    const text = readFileSync(layerScript, "utf8");
    const stale = gone.filter((entry) => text.includes(`"${entry}"`));
    if (stale.length > 0)
      console.log(
        `scripts/check-layers.mjs still names ${stale.join(", ")} (harmless if only listed; place new entries)`,
      );
  }
}
const movedCount = moves.size;
console.log(
  `move-features: ${dryRun ? "would move" : "moved"} ${movedCount} files, rewrote ${changedFiles.length}, in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`,
);
