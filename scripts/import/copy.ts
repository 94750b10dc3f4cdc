/**
 * The import itself: list the source's sessions, compare with what the target holds, and
 * copy each session (a few at a time) page by page. Every message keeps its source seq, so
 * the target skips what it already holds: reruns copy only what is new, an interrupted run
 * resumes after the last page the target acknowledged.
 */
import type { MappedRow } from "./entry-map.ts";
import { GatewayError } from "./gateway-client.ts";
import type { Options } from "./options.ts";
import { PageWriter, SessionEnd } from "./page-writer.ts";
import type { Progress, SessionOutcome, Stats } from "./progress.ts";
import { SourceChangedError, type SourceGateway, type SourcePage } from "./source.ts";
import { TargetError, type TargetService, type TargetSession } from "./target.ts";

/**
 * A resumed session is read from this many messages before where it stopped: the target
 * checks it holds those very messages (same ids), which catches a source that reset its
 * transcript in place (OpenClaw 2026.9 numbers from 1 again under the same sessionId).
 */
const RESUME_OVERLAP = 3;
/** Without history paging a source shows this many of the newest messages at most. */
const UNPAGED_HISTORY_MESSAGES = 1000;

/** A failure that ends the whole run (wrong token or address on either side). */
export class FatalError extends Error {}

/** What a dry run would do with one session. */
export type PlannedSession = { key: string; action: SessionOutcome; messages: number; reason?: string };

/** Everything one run shares between its sessions. */
type Run = {
  options: Options;
  source: SourceGateway;
  target: TargetService;
  stats: Stats;
  progress: Progress;
  /** What the target held when the run started, by key. */
  held: Map<string, TargetSession>;
  /** What a dry run would do. */
  planned: PlannedSession[];
};

export async function runImport(
  options: Options,
  source: SourceGateway,
  target: TargetService,
  stats: Stats,
  progress: Progress,
): Promise<PlannedSession[]> {
  try {
    await source.open();
    const held = await target.sessions();
    const listing = await source.listSessions();
    if (!listing.complete) {
      progress.note(
        "note: the source gateway refused offset paging or the archived filter of sessions.list; archived sessions, or sessions past its first page, may be missing",
      );
    }
    if (listing.unnamed > 0) stats.finish(`${listing.unnamed} rows`, "skipped", "no key or sessionId in sessions.list");
    const selected = listing.rows.filter((row) => selectedBy(options, row));
    stats.sessionsTotal = selected.length + (listing.unnamed > 0 ? 1 : 0);
    progress.start();
    const planned: PlannedSession[] = [];
    const run: Run = { options, source, target, stats, progress, held, planned };
    await pool(selected, options.concurrency, (row) => copySession(run, row));
    return planned;
  } catch (error) {
    throw fatal(error) ?? error;
  } finally {
    progress.stop();
    source.close();
  }
}

function selectedBy(options: Options, row: MappedRow): boolean {
  if (options.sessions && !options.sessions.some((glob) => glob.test(row.key))) return false;
  if (options.since !== null && (row.updatedAt === undefined || row.updatedAt < options.since)) return false;
  return true;
}

/** Errors that mean the run cannot go on, as FatalError; null for the others. */
function fatal(error: unknown): FatalError | null {
  if (error instanceof FatalError) return error;
  if (error instanceof GatewayError && (error.kind === "auth" || error.kind === "connect")) {
    return new FatalError(error.message);
  }
  if (error instanceof TargetError && (error.kind === "auth" || error.kind === "connect")) {
    return new FatalError(error.message);
  }
  return null;
}

/** Runs `work` over `items`, `concurrency` at a time; the first fatal error stops new work. */
async function pool<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let stop: unknown = null;
  const worker = async () => {
    while (stop === null && next < items.length) {
      const item = items[next++]!;
      try {
        await work(item);
      } catch (error) {
        stop ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  if (stop !== null) throw stop;
}

/** Copies one session; anything but a fatal error ends as this session's outcome. */
async function copySession(run: Run, row: MappedRow): Promise<void> {
  try {
    run.stats.finish(row.key, await copyOrPlan(run, row));
  } catch (error) {
    const stop = fatal(error);
    if (stop) throw stop;
    const outcome = error instanceof SessionEnd ? error.outcome : "failed";
    const reason = error instanceof Error ? error.message : String(error);
    run.stats.finish(row.key, outcome, reason);
    if (run.options.dryRun) run.planned.push({ key: row.key, action: outcome, messages: 0, reason });
  } finally {
    run.progress.update();
  }
}

async function copyOrPlan(run: Run, row: MappedRow): Promise<SessionOutcome> {
  const { options, source, stats } = run;
  const probe = await source.probe(row.key);
  // A reset after the listing: the probe has the newer transcript.
  const sessionId = probe.sessionId ?? row.sessionId;
  const current = run.held.get(row.key);
  if (current && current.sessionId !== sessionId) {
    throw new SessionEnd(
      "skipped",
      `the target holds another transcript under this key (sessionId ${current.sessionId}; the source's is ${sessionId}); delete it there to copy this one`,
    );
  }
  const after = current ? current.messageCount : 0;
  if (probe.totalMessages < after) {
    throw new SessionEnd(
      "skipped",
      `the source now has ${probe.totalMessages} messages, fewer than the ${after} imported: it was reset in place or rewritten; delete the session here to import it again`,
    );
  }
  const entryNewer = !current || (row.updatedAt !== undefined && (current.updatedAt ?? 0) < row.updatedAt);
  const outcome: SessionOutcome = current ? "updated" : "new";
  if (current && after >= probe.totalMessages && !entryNewer) {
    if (options.dryRun) run.planned.push({ key: row.key, action: "unchanged", messages: 0 });
    return "unchanged";
  }
  if (options.dryRun) {
    const messages = Math.max(0, probe.totalMessages - after);
    stats.messages += messages;
    run.planned.push({ key: row.key, action: outcome, messages });
    return outcome;
  }

  const writer = new PageWriter(run.target, row.key, { sessionId, entry: row.entry }, stats, after);
  const from = Math.max(0, after - RESUME_OVERLAP);
  const write = async (page: SourcePage) => {
    for (const [reason, n] of page.skipped) stats.skipMessages(reason, n);
    // A page of hidden messages only still moves the target past them.
    if (page.messages.length === 0 && page.through <= writer.through) return;
    await writer.write(page.messages, page.through);
    run.progress.update();
  };
  if (!probe.paged) {
    const page = await source.newestPage(row.key, from);
    if (probe.totalMessages - after > UNPAGED_HISTORY_MESSAGES) {
      stats.skipMessages(
        "older than the newest 1,000 (the source's chat.history has no offset paging)",
        probe.totalMessages - after - UNPAGED_HISTORY_MESSAGES,
      );
    }
    await write(page);
  } else {
    try {
      for await (const page of source.pages(row.key, sessionId, from, probe.totalMessages, options.batchSize)) {
        await write(page);
      }
    } catch (error) {
      if (error instanceof SourceChangedError) throw new SessionEnd("failed", `${error.message}; rerun to copy it`);
      throw error;
    }
  }
  // A session without (new) messages still gets its entry.
  if (writer.pagesSent === 0) await writer.write([], writer.through);
  return writer.created ? "new" : outcome;
}
