import { DurableObject } from "cloudflare:workers";
import type { DirectoryApi, DirectoryEntry } from "../contracts/directory-api";
import { DirectoryStore } from "./directory-store";

/**
 * The tenant directory: tenants live in one Durable Object each, and a Worker cannot list
 * Durable Objects, so the admin API records every tenant id here to list them. Admin traffic
 * only (create, list, delete): one object is plenty and keeps tenant objects out of it.
 */
export class DirectoryObject extends DurableObject implements DirectoryApi {
  private readonly store = new DirectoryStore(this.ctx.storage);

  add(id: string): void {
    this.store.add(id, Date.now());
  }

  markDeleting(id: string): void {
    this.store.markDeleting(id, Date.now());
  }

  remove(id: string): boolean {
    return this.store.remove(id);
  }

  get(id: string): DirectoryEntry | null {
    return this.store.get(id) ?? null;
  }

  page(limit: number, afterId?: string): DirectoryEntry[] {
    return this.store.page(limit, afterId);
  }
}
