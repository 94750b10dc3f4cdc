/** Command-line options of `npm run import`, validated into one object. Pure. */
import { parseArgs } from "node:util";

export const USAGE = `Copy every session of an OpenClaw gateway into a tenant of this service.

Usage:
  npm run import -- --from <ws-url> --from-token <token> --to <http-url> --to-token <token> [options]

  --from <url>          source gateway WebSocket, e.g. ws://127.0.0.1:18789 (this service too:
                        ws://host:8787 or wss://host/t/<tenant>)
  --from-token <token>  source gateway token (or env IMPORT_FROM_TOKEN)
  --to <url>            target service, e.g. http://127.0.0.1:8787 (default tenant) or
                        https://host/t/<tenant>
  --to-token <token>    operator token of the target tenant with operator.write (or env IMPORT_TO_TOKEN)
  --sessions <globs>    only session keys matching one of these comma-separated globs
                        (* matches anything, ? one character), e.g. 'agent:main:*'
  --since <date>        only sessions updated at or after this date (ISO 8601: 2026-11-01,
                        2026-11-01T12:00:00Z)
  --dry-run             list what would be copied; write nothing
  --concurrency <n>     sessions copied at once (default 3, 1-16)
  --batch-size <n>      messages per page read and written (default 1000, 1-1000)
  --json                print the summary as JSON on stdout
  --no-progress         no progress bar on stderr
  -h, --help            this text

Safe to rerun and to interrupt: messages keep their source position, so a rerun copies only
what is new and an interrupted run resumes where it stopped.`;

export type Options = {
  from: string;
  fromToken: string;
  to: string;
  toToken: string;
  sessions: RegExp[] | null;
  since: number | null;
  dryRun: boolean;
  concurrency: number;
  batchSize: number;
  json: boolean;
  progress: boolean;
};

export class UsageError extends Error {}

export function parseOptions(argv: string[], env: Record<string, string | undefined>): Options | "help" {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        from: { type: "string" },
        "from-token": { type: "string" },
        to: { type: "string" },
        "to-token": { type: "string" },
        sessions: { type: "string" },
        since: { type: "string" },
        "dry-run": { type: "boolean" },
        concurrency: { type: "string" },
        "batch-size": { type: "string" },
        json: { type: "boolean" },
        "no-progress": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return "help";
  const text = (name: string) => (typeof values[name] === "string" ? (values[name] as string).trim() : undefined);
  const fromToken = text("from-token") || env.IMPORT_FROM_TOKEN?.trim();
  const toToken = text("to-token") || env.IMPORT_TO_TOKEN?.trim();
  const missing = [
    !text("from") && "--from",
    !fromToken && "--from-token (or IMPORT_FROM_TOKEN)",
    !text("to") && "--to",
    !toToken && "--to-token (or IMPORT_TO_TOKEN)",
  ].filter(Boolean);
  if (missing.length > 0) throw new UsageError(`missing ${missing.join(", ")}`);
  return {
    from: gatewayUrl(text("from")!),
    fromToken: fromToken!,
    to: serviceUrl(text("to")!),
    toToken: toToken!,
    sessions: text("sessions") ? globs(text("sessions")!) : null,
    since: text("since") ? date(text("since")!) : null,
    dryRun: values["dry-run"] === true,
    concurrency: integer("--concurrency", text("concurrency"), 3, 1, 16),
    batchSize: integer("--batch-size", text("batch-size"), 1000, 1, 1000),
    json: values.json === true,
    progress: values["no-progress"] !== true,
  };
}

/** ws:// or wss:// (http(s):// is taken as the same address). */
function gatewayUrl(raw: string): string {
  const url = parseUrl("--from", raw);
  if (url.protocol === "http:") url.protocol = "ws:";
  if (url.protocol === "https:") url.protocol = "wss:";
  if (url.protocol !== "ws:" && url.protocol !== "wss:") {
    throw new UsageError(`--from must be a ws:// or wss:// gateway URL, not ${raw}`);
  }
  return url.toString().replace(/\/$/, "");
}

/** http(s)://host[:port][/t/<tenant>] without a trailing slash. */
function serviceUrl(raw: string): string {
  const url = parseUrl("--to", raw);
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError(`--to must be an http:// or https:// URL, not ${raw}`);
  }
  if (url.search || url.hash) throw new UsageError(`--to takes no query or fragment: ${raw}`);
  const path = url.pathname.replace(/\/+$/, "");
  if (path !== "" && !/^\/t\/[a-z0-9][a-z0-9-]{0,62}$/.test(path)) {
    throw new UsageError(`--to is the service root or /t/<tenant>, not ${url.pathname}`);
  }
  return `${url.origin}${path}`;
}

function parseUrl(flag: string, raw: string): URL {
  try {
    return new URL(raw);
  } catch {
    throw new UsageError(`${flag} is not a URL: ${raw}`);
  }
}

/** Comma-separated globs over whole keys: `*` any run of characters, `?` one. */
export function globs(raw: string): RegExp[] {
  const patterns = raw
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean);
  if (patterns.length === 0) throw new UsageError("--sessions needs at least one glob");
  return patterns.map((pattern) => {
    const body = pattern
      .replace(/[.+^${}()|[\]\\]/g, "\\$&")
      .replace(/\*/g, ".*")
      .replace(/\?/g, ".");
    return new RegExp(`^${body}$`, "i");
  });
}

function date(raw: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}/.test(raw) ? Date.parse(raw) : Number.NaN;
  if (!Number.isFinite(ms)) throw new UsageError(`--since is not an ISO 8601 date: ${raw} (e.g. 2026-11-01)`);
  return ms;
}

function integer(flag: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new UsageError(`${flag} must be a whole number from ${min} to ${max}`);
  return n;
}
