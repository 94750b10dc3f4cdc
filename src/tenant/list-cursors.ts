import type { ListFilter } from "../contracts/tenant-api";
import { stableJson } from "../util/stable-json";

/** A place in the index's list order (updatedAt descending, then key descending). */
export type ListPosition = { updatedAt: number; key: string };

/** Continuations remembered per tenant object; the oldest are forgotten first. */
export const LIST_CURSORS_MAX = 512;

/**
 * Where each served `sessions.list` page ended, by filter and by the `nextOffset` it answered.
 * OpenClaw's clients page with a numeric `offset` (the Control UI even compares it, and
 * OpenClaw's sessions_list checks nextOffset = offset + rows), so no opaque cursor can ride in
 * it; instead the next page's offset finds the position the previous page left and continues
 * from there by key (O(page)). An offset nobody was answered (a jump, or after the tenant
 * object restarted) is sought from the top of the list instead.
 */
export class ListCursors {
  private readonly positions = new Map<string, ListPosition>();

  constructor(private readonly capacity = LIST_CURSORS_MAX) {}

  get(filter: ListFilter, offset: number): ListPosition | undefined {
    const id = cursorId(filter, offset);
    const position = this.positions.get(id);
    if (position) {
      // Used again: the newest in the map's order.
      this.positions.delete(id);
      this.positions.set(id, position);
    }
    return position;
  }

  set(filter: ListFilter, offset: number, position: ListPosition): void {
    const id = cursorId(filter, offset);
    this.positions.delete(id);
    this.positions.set(id, position);
    while (this.positions.size > this.capacity) {
      const oldest = this.positions.keys().next().value;
      if (oldest === undefined) break;
      this.positions.delete(oldest);
    }
  }

  get size(): number {
    return this.positions.size;
  }
}

/** The filter (its page size and offset aside) and the offset: equal filters, equal ids. */
function cursorId(filter: ListFilter, offset: number): string {
  const { limit: _limit, offset: _offset, ...rest } = filter;
  return `${offset}:${stableJson(rest)}`;
}
