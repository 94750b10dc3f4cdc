// Layer guard (part of `npm run lint`): the dependency rule of docs/architecture.md, checked on
// the value imports between src/'s top-level entries. Every entry is placed in one layer of
// LAYERS; an entry imports its own layer and the layers below it, never round a cycle, and an
// engine reaches another object only through a port. Fails naming each entry left unplaced (or
// placed but gone), each upward import and each folder cycle.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { relative } from "node:path";
import { cycles, featureImports, files, folderImports, SRC } from "./lib/source-graph.mjs";

/**
 * src/'s top-level entries (folders, and files such as stubs.ts) by layer, the top first. Each
 * may import what is in its own layer or a lower one (`import type` is free); a new entry goes
 * in the layer of what it may import and what imports it.
 */
const LAYERS = [
  // The worker entry: exports the Durable Object classes and hands each what it needs from above.
  { name: "worker", entries: ["index.ts"] },
  // The feature slices composed: the HTTP app, the gateway's method table.
  { name: "composition", entries: ["app.ts", "slices.ts"] },
  // Each feature's gateway methods, routes and OpenAPI operations.
  { name: "features", entries: ["features"] },
  // The objects that hold gateway sockets, handed the method table (they import no feature).
  { name: "gateway hosts", entries: ["tenant", "gateway-hub-object.ts"] },
  // The doors every feature shares: HTTP, the gateway protocol, OAuth (MCP, the OpenAI door,
  // webhooks and chat apps are features: features/<name>/).
  { name: "transport", entries: ["http", "gateway", "oauth", "registry"] },
  // The objects that run sessions and schedules; they know no door (a reply's routes are handed in).
  { name: "run hosts", entries: ["session"] },
  // The operations every door shares, and the session tools.
  { name: "application", entries: ["domain", "tools"] },
  // Runs, flows, spawns, deliveries, timers, pending sessions: what they need from above is a port.
  { name: "engines", entries: ["runs", "flows", "spawn", "delivery", "timers", "pending"] },
  // Tokens, secrets, the ledger and the meters, the directory, display projections, the object stubs.
  { name: "services", entries: ["auth", "secrets", "ledger", "metering", "directory", "render", "stubs.ts"] },
  // Pure decisions and the records they judge (and guarded-fetch.ts, the fetch that applies the outbound one).
  { name: "rules", entries: ["policy", "model"] },
  // Shapes, keys, RPC contracts, SQL helpers, log lines, small helpers: they import no other entry.
  { name: "base", entries: ["keys", "protocol", "contracts", "storage", "observability", "util"] },
];
/** Entries an engine may not import although they are below it: it reaches other objects through ports. */
const PORTS_ONLY = { layer: "engines", entries: new Set(["stubs.ts"]) };
/** The Node tier must exercise the tool loop engine itself. */
const TOOL_LOOP_MODULE = /tool-loop\/tool-loop["']/;

const rankOf = new Map(LAYERS.flatMap(({ entries }, rank) => entries.map((entry) => [entry, rank])));
const layerName = (entry) => LAYERS[rankOf.get(entry)].name;
const present = readdirSync(SRC).filter((entry) => !entry.endsWith(".d.ts"));
const problems = [];
for (const entry of present)
  if (!rankOf.has(entry))
    problems.push(
      `src/${entry} is in no layer: add it to LAYERS in scripts/check-layers.mjs (the layer of what it may import; docs/architecture.md, "The dependency rule")`,
    );
for (const entry of rankOf.keys())
  if (!present.includes(entry))
    problems.push(
      `src/${entry} does not exist: remove it from LAYERS in scripts/check-layers.mjs (or place its new name)`,
    );

const { arrows, edges } = folderImports();
for (const group of cycles(arrows))
  problems.push(`folder cycle {${group.join(", ")}}: break one arrow (a port, or a type/function moved down)`);
for (const { file, specifier, from, to } of edges) {
  if (!rankOf.has(from) || !rankOf.has(to)) continue;
  if (rankOf.get(to) < rankOf.get(from))
    problems.push(
      `${layerName(from)} imports upward: ${relative(".", file)} imports ${specifier} (${to}, ${layerName(to)}); hand it in as a port where the object is assembled, or move it down`,
    );
  else if (layerName(from) === PORTS_ONLY.layer && PORTS_ONLY.entries.has(to))
    problems.push(
      `engine reaches an object directly: ${relative(".", file)} imports ${specifier}; hand it in as a port where the object is assembled`,
    );
}
// A feature is one folder that no other feature reaches into: what two features share lives below
// them (domain/, a port), so a feature can be read, moved or removed alone.
for (const { file, specifier, to } of featureImports().edges)
  problems.push(
    `a feature imports another: ${relative(".", file)} imports ${specifier} (${to}); move what both use below the features (domain/ or a port)`,
  );
const unitTests = existsSync("test/unit") ? [...files("test/unit", /\.(ts|mjs|js)$/)] : [];
if (!unitTests.some((file) => TOOL_LOOP_MODULE.test(readFileSync(file, "utf8"))))
  problems.push("no Node unit test (test/unit/) imports runs/tool-loop/tool-loop");

// Every R2 call is metered (issue 48): the bucket binding is read in src/metering/ only, where
// attachmentsOf(env) hands it out wrapped (metered-env.ts); anywhere else it would bill nobody.
const RAW_BUCKET = /\.ATTACHMENTS\b|\[["']ATTACHMENTS["']\]/;
for (const file of files(SRC, /\.ts$/)) {
  if (relative(SRC, file).startsWith("metering/")) continue;
  const lines = readFileSync(file, "utf8").split("\n");
  lines.forEach((line, i) => {
    if (RAW_BUCKET.test(line) && !/^\s*(\*|\/\/)/.test(line))
      problems.push(
        `unmetered R2: ${relative(".", file)}:${i + 1} reads the ATTACHMENTS binding; take the bucket from attachmentsOf(env) (src/metering/metered-env.ts)`,
      );
  });
}

if (problems.length > 0) {
  for (const problem of problems) console.error(`layer guard: ${problem}`);
  process.exit(1);
}
