/**
 * Writes one session's pages into the target through the import route, split to its body
 * limit. A message the target refuses (it names it) is skipped and counted, and the rest
 * of its page still goes, in order.
 */
import type { SessionOutcome, Stats } from "./progress.ts";
import type { SourceMessage } from "./source.ts";
import { type ImportPageBody, TargetError, type TargetService } from "./target.ts";

/** Request bodies stay under the target's 2 MB limit. */
const MAX_PAGE_BYTES = 1_500_000;

/** How one session ended when it did not end as copied. */
export class SessionEnd extends Error {
  readonly outcome: SessionOutcome;

  constructor(outcome: SessionOutcome, message: string) {
    super(message);
    this.outcome = outcome;
  }
}

/** A message to send and its JSON size. */
type Sized = { message: SourceMessage; bytes: number };

export class PageWriter {
  created = false;
  pagesSent = 0;
  /** The source seq the target holds everything through. */
  through: number;
  /** Where the target stood when the session started: messages up to it are sent only to be checked. */
  private readonly heldBefore: number;
  private readonly target: TargetService;
  private readonly key: string;
  private readonly session: Omit<ImportPageBody, "messages">;
  private readonly stats: Stats;

  constructor(
    target: TargetService,
    key: string,
    session: Omit<ImportPageBody, "messages">,
    stats: Stats,
    through: number,
  ) {
    this.target = target;
    this.key = key;
    this.session = session;
    this.stats = stats;
    this.through = through;
    this.heldBefore = through;
  }

  /** Writes the messages of a source page read through seq `through` (the last body says so). */
  async write(messages: SourceMessage[], through?: number): Promise<void> {
    let chunk: Sized[] = [];
    let chunkBytes = 0;
    for (const message of messages) {
      const bytes = Buffer.byteLength(JSON.stringify(message));
      if (chunk.length > 0 && chunkBytes + bytes > MAX_PAGE_BYTES) {
        await this.send(chunk);
        chunk = [];
        chunkBytes = 0;
      }
      chunk.push({ message, bytes });
      chunkBytes += bytes;
    }
    await this.send(chunk, through);
  }

  private async send(items: Sized[], through?: number): Promise<void> {
    const messages = items.map((item) => item.message);
    try {
      const answer = await this.target.importPage(this.key, {
        ...this.session,
        messages,
        ...(through !== undefined ? { throughSeq: through } : {}),
      });
      this.through = Math.max(this.through, answer.lastSeq);
      this.pagesSent++;
      this.created ||= answer.created;
      this.stats.messages += answer.imported;
      const overlap = messages.filter((m) => m.__openclaw.seq <= this.heldBefore).length;
      this.stats.alreadyThere += Math.max(0, answer.skipped - overlap);
      // Written ones are the newest of the page (held seqs come first).
      this.stats.bytes += items.slice(items.length - answer.imported).reduce((n, item) => n + item.bytes, 0);
    } catch (error) {
      if (!(error instanceof TargetError)) throw error;
      if (error.kind === "conflict") {
        throw new SessionEnd(
          "skipped",
          `the target refused it: ${error.message} (delete the session there to import it again)`,
        );
      }
      if (error.kind !== "rejected") throw error;
      const named = /\bmessages\.(\d+)\b/.exec(error.message);
      const index = named ? Number(named[1]) : error.status === 413 && items.length === 1 ? 0 : -1;
      if (index >= 0 && index < items.length) {
        const why = error.message.replace(/^\d+ /, "").replace(/\bmessages\.\d+\.?/g, "");
        this.stats.skipMessages(`refused by the target (${why})`, 1);
        // The rest of the page still goes (an empty page still records how far it was read).
        await this.send(
          items.filter((_, i) => i !== index),
          through,
        );
        return;
      }
      if (error.status === 413 && items.length > 1) {
        // Too large, and the target does not say which: halve until it does.
        const half = Math.ceil(items.length / 2);
        await this.send(items.slice(0, half));
        await this.send(items.slice(half), through);
        return;
      }
      throw new SessionEnd("failed", `the target refused the page: ${error.message}`);
    }
  }
}
