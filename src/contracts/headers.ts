/** Internal headers between the worker and its Durable Objects (never accepted from clients). */

/**
 * On the tenant object's answer to a gateway upgrade: the hub object the socket goes to
 * instead (it holds as many as it may). Only ever on an answer, never read from a request.
 */
export const HUB_HEADER = "x-openclaw-gateway-hub";

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
