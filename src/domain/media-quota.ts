/**
 * The media bytes a tenant keeps in the ATTACHMENTS bucket, against its `mediaBytesPerTenant`
 * (issue 46: "bounded by size limits … per tenant"). Measured, not counted: the sum of the
 * sizes under the tenant's prefix, so every way files leave (a session deleted or reset, a
 * sub-agent cleaned up, the tenant deleted) lowers it with no bookkeeping to forget. The cost is
 * one R2 list per 1,000 stored objects for each chat message that carries files; the listing
 * stops as soon as the sum reaches the limit (the answer is then "none left").
 */

/** Objects an R2 list answers at most per call. */
const R2_LIST_PAGE = 1_000;

/** How many bytes of `limit` the tenant has left (0 when at or over it). */
export async function mediaBytesLeft(bucket: R2Bucket, tenantId: string, limit: number): Promise<number> {
  let used = 0;
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix: `${tenantId}/`, limit: R2_LIST_PAGE, ...(cursor ? { cursor } : {}) });
    for (const object of page.objects) used += object.size;
    if (used >= limit) return 0;
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return limit - used;
}
