/** Internal headers between the worker and its Durable Objects (never accepted from clients). */

/** Carries the SSE follow query from the worker to the session object. */
export const FOLLOW_HEADER = "x-openclaw-follow";

/** What an SSE follower asked for (OpenClaw's history query), as FOLLOW_HEADER carries it. */
export type FollowQuery = {
  sessionKey: string;
  limit?: number;
  cursorSeq?: number;
  includeTools: boolean;
  tokenId?: string;
};
