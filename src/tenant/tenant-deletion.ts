import type { HeldIndexRows } from "./held-index-rows";
import type { IndexStore } from "./index-store";
import type { TenantAccessControl } from "./tenant-access";
import type { TenantGateway } from "./tenant-gateway";
import { openTenantDatabase, type TenantStore } from "./tenant-store";

/**
 * Deleting a tenant, as the admin API drives it in retry-safe steps: the first step marks the
 * tenant, closes its gateway sockets (in every hub) and revokes every token; each step names
 * the next session keys to delete; the last drops everything the tenant object holds.
 */
export class TenantDeletion {
  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly tenantStore: TenantStore,
    private readonly index: IndexStore,
    private readonly heldRows: HeldIndexRows,
    private readonly access: TenantAccessControl,
    private readonly gateway: TenantGateway,
  ) {}

  async step(batch: number): Promise<{ deletingSince: number; keys: string[]; remaining: number } | null> {
    const { tenantStore, gateway, access, index } = this;
    if (!tenantStore.exists()) return null;
    const deletingSince = tenantStore.markDeleting(Date.now());
    await gateway.closeAll(1008, "tenant deleted");
    await access.revokeAll();
    const { keys, total } = index.sessionIds.liveKeys(batch);
    return { deletingSince, keys, remaining: total };
  }

  async finish(): Promise<void> {
    const { storage, access, tenantStore, gateway, heldRows } = this;
    await storage.deleteAlarm();
    heldRows.discard();
    await storage.deleteAll();
    access.forget();
    tenantStore.forget();
    gateway.forget();
    openTenantDatabase(storage);
  }
}
