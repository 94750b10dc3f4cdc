import type { Awaitable } from "./session-api";

/** A tenant as the deployment's directory records it. */
export type DirectoryEntry = { id: string; createdAt: number; deletingAt?: number };

/** The RPC surface of the deployment's one directory object (the admin API lists tenants from it). */
export interface DirectoryApi {
  add(id: string): Awaitable<void>;
  markDeleting(id: string): Awaitable<void>;
  remove(id: string): Awaitable<boolean>;
  get(id: string): Awaitable<DirectoryEntry | null>;
  page(limit: number, afterId?: string): Awaitable<DirectoryEntry[]>;
}
