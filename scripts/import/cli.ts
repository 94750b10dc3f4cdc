/**
 * `npm run import`: copies every session of an OpenClaw gateway into a tenant of this
 * service. Exit codes: 0 done, 1 some sessions failed, 2 wrong usage or an unreachable or
 * refusing gateway or target (one line on stderr, never a stack trace).
 */
import { readFileSync } from "node:fs";
import { FatalError, type PlannedSession, runImport } from "./copy.ts";
import { parseOptions, USAGE, UsageError } from "./options.ts";
import { formatSummary, Progress, Stats, summarize } from "./progress.ts";
import { SourceGateway } from "./source.ts";
import { TargetService } from "./target.ts";

const VERSION = packageVersion();

export async function main(argv: string[]): Promise<number> {
  let options: ReturnType<typeof parseOptions>;
  try {
    options = parseOptions(argv, process.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`import: ${error.message} (see --help)\n`);
    return 2;
  }
  if (options === "help") {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }

  const stats = new Stats();
  const progress = new Progress(stats, process.stderr, options.progress);
  const retried = (what: string, error: unknown, delayMs: number) => {
    stats.retries++;
    progress.note(`retrying ${what} in ${(delayMs / 1000).toFixed(1)} s: ${(error as Error).message}`);
  };
  const source = new SourceGateway(options.from, options.fromToken, VERSION, retried);
  const target = new TargetService(options.to, options.toToken, retried);
  process.once("SIGINT", () => {
    progress.note("\ninterrupted: nothing is half-written; run the same command again to resume");
    process.exit(130);
  });

  let planned: PlannedSession[];
  try {
    planned = await runImport(options, source, target, stats, progress);
  } catch (error) {
    if (!(error instanceof FatalError)) throw error;
    process.stderr.write(`import: ${error.message}\n`);
    return 2;
  }
  const summary = summarize(stats, {
    from: options.from,
    to: options.to,
    dryRun: options.dryRun,
    unmapped: source.unmapped,
  });
  if (options.json) {
    process.stdout.write(`${JSON.stringify(options.dryRun ? { ...summary, plan: planned } : summary, null, 2)}\n`);
  } else {
    if (options.dryRun) process.stdout.write(formatPlan(planned));
    process.stdout.write(`${formatSummary(summary)}\n`);
  }
  return stats.outcomes.failed > 0 ? 1 : 0;
}

function formatPlan(planned: PlannedSession[]): string {
  const sorted = [...planned].sort((a, b) => a.key.localeCompare(b.key));
  const width = Math.max(0, ...sorted.map((p) => p.key.length));
  return sorted
    .map(
      (p) =>
        `${p.action.padEnd(9)} ${p.key.padEnd(width)} ${p.reason ?? `${p.messages.toLocaleString("en-US")} messages`}\n`,
    )
    .join("");
}

function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
      version?: string;
    };
    return pkg.version ?? "0.0.0";
  } catch {
    return "0.0.0";
  }
}
