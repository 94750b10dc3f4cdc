import type { Page, PageQuery } from "../contracts/session-api";
import type { SessionEntry } from "../protocol/session";

/**
 * What runs need of their session's transcript (the session store satisfies it): atomic
 * commits, the current entry, and the tail a run's context is read from.
 */
export type TranscriptPort = {
  /** Runs `fn` atomically; a throw rolls its writes back. */
  transaction<T>(fn: () => T): T;
  loadEntry(): { entry: SessionEntry } | undefined;
  tail(query: PageQuery): Page;
  /** The message bytes the session holds (SessionStore.messageBytes). */
  messageBytes(): number;
};
