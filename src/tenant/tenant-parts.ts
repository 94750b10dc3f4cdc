import type { TenantApi } from "../contracts/tenant-api";
import { installLedgerLogSink } from "../ledger/log-sink";
import { PendingSessions } from "../pending/pending-sessions";
import { PendingSessionStore } from "../pending/pending-store";
import type { MethodTable } from "../registry/method";
import { TenantSecrets } from "../secrets/tenant-secrets";
import { ledgerApi } from "../stubs";
import { IndexStore } from "./index-store";
import { RunIndex } from "./run-index";
import { TenantRunsRole } from "./runs-role";
import { SessionDirectory } from "./session-directory";
import { endFollowsIn, TenantAccessControl } from "./tenant-access";
import { TenantDeletion } from "./tenant-deletion";
import { TenantGateway } from "./tenant-gateway";
import { TenantLimits } from "./tenant-limits";
import { openTenantDatabase, TenantStore } from "./tenant-store";
import { TokenStore } from "./token-store";

/** The tenant object's modules, each over its own store: what its RPC methods delegate to. */
export type TenantParts = {
  tenantStore: TenantStore;
  tokens: TokenStore;
  index: IndexStore;
  pending: PendingSessions;
  secrets: TenantSecrets;
  access: TenantAccessControl;
  directory: SessionDirectory;
  runs: TenantRunsRole;
  quota: TenantLimits;
  gateway: TenantGateway;
  deletion: TenantDeletion;
};

/**
 * Opens the tenant's database and assembles its modules, each handed the others it needs as
 * functions (several need each other: the limits count the gateway's sockets, the gateway admits
 * sockets through the limits). `tenant` is the object itself, the API its gateway methods call.
 */
export function wireTenant(ctx: DurableObjectState, env: Env, methods: MethodTable, tenant: TenantApi): TenantParts {
  installLedgerLogSink(env);
  openTenantDatabase(ctx.storage);
  const sql = ctx.storage.sql;
  const tenantStore = new TenantStore(sql);
  const tokens = new TokenStore(sql);
  const index = new IndexStore(sql);
  const pendingStore = new PendingSessionStore(sql);
  const pending = new PendingSessions(
    pendingStore,
    index,
    () => tenantStore.tenantId(),
    () => quota.admitSession(),
  );
  const secrets = new TenantSecrets(sql, env, () => ctx.id.name);
  const quota: TenantLimits = new TenantLimits(
    env as unknown as Record<string, unknown>,
    tenantStore,
    () => tenantStore.config(),
    async (day) => ledgerApi(env, ctx.id.name ?? "").tokensOn(day),
    (promise) => ctx.waitUntil(promise),
    () => gateway.sockets(),
    () => index.sessions.sessionCount() + pendingStore.placeholders(),
    () => index.progress.messageBytesTotal(),
  );
  const runs = new TenantRunsRole(new RunIndex(index.runs), quota);
  const access = new TenantAccessControl({
    env,
    tenantStore,
    tokens,
    closeConnections: (tokenId) => gateway.closeToken(tokenId),
    endFollows: (follows) => endFollowsIn(env, tenantStore.tenantId(), follows),
  });
  const gateway: TenantGateway = new TenantGateway(
    {
      ctx,
      env,
      methods,
      config: () => tenantStore.config(),
      authenticate: (token) => access.authenticateBearer(token),
      tenant,
    },
    (sockets) => quota.admitSocket(sockets),
  );
  const directory = new SessionDirectory({
    env,
    index,
    pending,
    tenantStore,
    fanout: gateway.fanout,
    audience: (key) => gateway.audience(key),
  });
  const deletion = new TenantDeletion(ctx.storage, tenantStore, index, directory.heldRows, access, gateway);
  return { tenantStore, tokens, index, pending, secrets, access, directory, runs, quota, gateway, deletion };
}
