/** How a session object is named: `<tenantId>/<canonical key>` (stubs.ts turns the name into a stub). */
export function sessionObjectName(tenantId: string, key: string): string {
  return `${tenantId}/${key}`;
}

/**
 * The runtime gives an object its name (`ctx.id.name`) only up to a size: past ~1 KB of UTF-8
 * it is undefined inside the object. Such keys never get a pending entry (the object could
 * not find it).
 */
const NAME_CARRIED_MAX_BYTES = 1000;

export function objectKnowsItsName(tenantId: string, key: string): boolean {
  return new TextEncoder().encode(sessionObjectName(tenantId, key)).byteLength <= NAME_CARRIED_MAX_BYTES;
}

/** The tenant and key a session object was named for (its `ctx.id.name`), or null. */
export function parseSessionObjectName(name: string | undefined): { tenantId: string; key: string } | null {
  const slash = name?.indexOf("/") ?? -1;
  if (!name || slash <= 0) return null;
  return { tenantId: name.slice(0, slash), key: name.slice(slash + 1) };
}
