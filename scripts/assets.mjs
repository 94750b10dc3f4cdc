// Prepares the one folder Workers Static Assets serves (`public/`, git-ignored, never committed):
//   - the OpenClaw Control UI build from the installed `openclaw` package (dist/control-ui), at
//     the folder's root, without the precompressed *.br / *.gz twins (Cloudflare compresses);
//   - the two Swagger UI files the /docs page loads, under docs/assets/.
// Runs from this package's `prepare` (after `npm install` / `npm ci`) and before `npm run dev`
// and `npm test`. Never fails the install: without the packages the folder is still created (so
// `wrangler dev` starts) and the API is served; a line says what is missing.
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(join(root, "package.json"));
export const ASSETS_DIR = join(root, "public");
const STAMP = join(ASSETS_DIR, ".prepared");
const SWAGGER_FILES = ["swagger-ui-bundle.js", "swagger-ui.css"];

/** An installed package's folder (not through `exports`: openclaw does not export package.json). */
function packageDir(name) {
  for (const base of require.resolve.paths(name) ?? []) {
    if (existsSync(join(base, name, "package.json"))) return join(base, name);
  }
  return null;
}

function versionOf(dir) {
  return dir ? JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version : null;
}

export function prepareAssets({ log = (line) => console.log(`[assets] ${line}`) } = {}) {
  const openclaw = packageDir("openclaw");
  const swagger = packageDir("swagger-ui-dist");
  const stamp = JSON.stringify({ openclaw: versionOf(openclaw), swagger: versionOf(swagger) });
  if (existsSync(STAMP) && readFileSync(STAMP, "utf8") === stamp) return { fresh: false };

  rmSync(ASSETS_DIR, { recursive: true, force: true });
  mkdirSync(ASSETS_DIR, { recursive: true });
  const ui = openclaw ? join(openclaw, "dist", "control-ui") : null;
  if (ui && existsSync(join(ui, "index.html"))) {
    cpSync(ui, ASSETS_DIR, { recursive: true, filter: (path) => !/\.(br|gz)$/.test(path) });
    log(`Control UI of openclaw@${versionOf(openclaw)} copied to public/`);
  } else {
    log("Control UI not available (the openclaw package is not installed); the API is served, / shows no UI");
  }
  if (swagger) {
    mkdirSync(join(ASSETS_DIR, "docs", "assets"), { recursive: true });
    for (const file of SWAGGER_FILES) cpSync(join(swagger, file), join(ASSETS_DIR, "docs", "assets", file));
  } else {
    log("swagger-ui-dist is not installed; /docs will miss its script and styles");
  }
  // The stamp is ours, not the site's: keep it out of `wrangler deploy`'s upload.
  writeFileSync(join(ASSETS_DIR, ".assetsignore"), ".prepared\n.assetsignore\n");
  writeFileSync(STAMP, stamp);
  return { fresh: true };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) prepareAssets();
