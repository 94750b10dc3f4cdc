#!/usr/bin/env node
// Entry of `npm run import` and `npx`: the command is TypeScript that Node runs directly
// (type stripping: Node 22.18+, 23.6+, 24). Anything unexpected is one line, not a stack trace.
if (!process.features.typescript) {
  process.stderr.write(
    `import: Node ${process.versions.node} cannot run TypeScript directly; use Node 22.18 or newer\n`,
  );
  process.exit(2);
}
const { main } = await import("./cli.ts");
try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`import: unexpected failure: ${error instanceof Error ? error.message : String(error)}\n`);
  if (process.env.IMPORT_DEBUG) console.error(error);
  process.exitCode = 1;
}
