import type {
  TenantAccessApi,
  TenantAdminApi,
  TenantConfigApi,
  TenantIndexApi,
  TenantRunsApi,
  TenantSecretsApi,
} from "../contracts/tenant-api";
import type { TenantPort, TenantRole } from "./context";

/**
 * `names`, held by the compiler to be exactly the methods of `Api`: a name it lacks is refused,
 * and a method left out is named in the error (`missing`).
 */
const methodsOf =
  <Api>() =>
  <const Names extends readonly (keyof Api & string)[]>(
    names: Names &
      ([Exclude<keyof Api, Names[number]>] extends [never] ? unknown : { missing: Exclude<keyof Api, Names[number]> }),
  ): readonly (keyof Api & string)[] =>
    names;

/** Each tenant role's methods by name, for what must know them at run time (a port narrowed to some roles). */
const ROLE_METHODS: { readonly [Role in TenantRole]: readonly string[] } = {
  access: methodsOf<TenantAccessApi>()([
    "create",
    "exists",
    "openDefault",
    "issueToken",
    "tokenExists",
    "followWith",
    "revokeToken",
    "authenticate",
    "authenticateGateway",
    "issueStreamTicket",
    "redeemStreamTicket",
  ]),
  admin: methodsOf<TenantAdminApi>()(["tokenList", "info", "deletionStep", "finishDeletion"]),
  config: methodsOf<TenantConfigApi>()(["config", "putConfig", "runnerSecret"]),
  index: methodsOf<TenantIndexApi>()([
    "publish",
    "createSession",
    "claimPendingSession",
    "removeSession",
    "session",
    "keyForSessionId",
    "listSessions",
    "listSessionsPage",
    "sessionKeysAfter",
    "claimSessionId",
    "keysWithLabel",
    "agentIds",
    "countActiveChildren",
    "rebuildIndex",
  ]),
  runs: methodsOf<TenantRunsApi>()([
    "recordRunStart",
    "recordFlowStep",
    "recordAnnounceRun",
    "admitCompletion",
    "acquireModelSlot",
    "limits",
    "transcriptLimits",
    "runKey",
    "waitForRunKey",
    "recentRunIds",
    "admit",
  ]),
  secrets: methodsOf<TenantSecretsApi>()([
    "secretsList",
    "secretsSet",
    "secretsDelete",
    "deploymentKeyGrants",
    "resolveSecret",
  ]),
};

/**
 * The tenant port with the methods of `roles` only (each calls `port`'s): what a session tool's
 * run gets (tools/invoke.ts), so a role it did not declare is absent at run time as well as in
 * its types. `port` may be a stub (a proxy: its methods cannot be listed) or the object itself.
 */
export function portOfRoles<Role extends TenantRole>(
  port: TenantPort<TenantRole>,
  roles: readonly Role[],
): TenantPort<Role> {
  // A declaration's roles are one array for the isolate's life, and a connection or an object
  // keeps one port: the view is built once per pair, not on every call.
  let views = viewsOfPort.get(port);
  if (!views) {
    views = new WeakMap();
    viewsOfPort.set(port, views);
  }
  let view = views.get(roles);
  if (!view) {
    view = viewOf(port, roles);
    views.set(roles, view);
  }
  return view as unknown as TenantPort<Role>;
}

const viewsOfPort = new WeakMap<object, WeakMap<readonly TenantRole[], object>>();

function viewOf(port: TenantPort<TenantRole>, roles: readonly TenantRole[]): object {
  const all = port as unknown as Record<string, (...args: unknown[]) => unknown>;
  const view: Record<string, (...args: unknown[]) => unknown> = {};
  for (const role of roles) for (const name of ROLE_METHODS[role]) view[name] = (...args) => all[name]!(...args);
  return view;
}
