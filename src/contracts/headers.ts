/** Internal headers between the worker and its Durable Objects (never accepted from clients). */

/** Carries the SSE follow query from the worker to the session object. */
export const FOLLOW_HEADER = "x-openclaw-follow";
