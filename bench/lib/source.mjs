// `wrangler dev` rebuilds and reloads the worker whenever a source file changes, so edits made
// while a benchmark runs silently mix two versions of the code into one result. This module
// fingerprints the inputs of the build (to detect that) and can copy them to a private
// directory (to prevent it: `--snapshot`).
import { cp, mkdtemp, readdir, stat, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Files and folders of the repo that the worker build reads. */
export const BUILD_INPUTS = ["src", "wrangler.toml", "package.json", "tsconfig.json", ".dev.vars.example"];

/** Map of relative path → "mtimeMs:size" for every file under the build inputs. */
export async function fingerprint(root, inputs = BUILD_INPUTS) {
  const result = new Map();
  async function visit(rel) {
    let info;
    try {
      info = await stat(join(root, rel));
    } catch {
      return;
    }
    if (info.isDirectory()) {
      for (const name of await readdir(join(root, rel))) await visit(join(rel, name));
    } else {
      result.set(rel, `${info.mtimeMs}:${info.size}`);
    }
  }
  for (const input of inputs) await visit(input);
  return result;
}

/** Paths added, removed or modified between two fingerprints. */
export function changedFiles(before, after) {
  const changed = [];
  for (const [path, sig] of after) if (before.get(path) !== sig) changed.push(path);
  for (const path of before.keys()) if (!after.has(path)) changed.push(`${path} (deleted)`);
  return changed.sort();
}

/**
 * Generated folders the build needs but nobody edits: symlinked into a snapshot, not copied
 * (public/ is the static assets folder that `npm install` fills; wrangler refuses to start without it).
 */
const LINKED = ["node_modules", "public"];

/** Copies the build inputs to a fresh temp dir with node_modules and public/ symlinked; returns its path. */
export async function snapshotRepo(root, inputs = BUILD_INPUTS) {
  const dir = await mkdtemp(join(tmpdir(), "oc-bench-src-"));
  for (const input of inputs) {
    await cp(join(root, input), join(dir, input), { recursive: true, errorOnExist: false }).catch((error) => {
      if (error.code !== "ENOENT") throw error;
    });
  }
  for (const name of LINKED) {
    if (await stat(join(root, name)).catch(() => null)) await symlink(join(root, name), join(dir, name), "dir");
  }
  return dir;
}
