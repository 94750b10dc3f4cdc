import type { SessionApi } from "../contracts/session-api";
import type { TenantApi } from "../contracts/tenant-api";
import type { TenantPorts } from "../domain/context";
import { rateLimited } from "../domain/errors";
import type { OutboundEnv } from "../policy/outbound-url";
import { type ObjectBindings, sessionWith, tenantPorts } from "../stubs";

/**
 * The domain's ports as the tenant object gives them to the gateway sockets it holds: the
 * tenant port is the object itself (no RPC to itself), and a session port makes the two
 * hand-offs only the tenant object can take, so the domain never knows where it runs:
 * - a run start claims a new session's pending entry here and passes it on (`StartRun.claimed`),
 *   so the session object need not call back for it;
 * - chat.inject lets the session hand its index update back (`inject(…, handOff)`) and applies
 *   it here, instead of the session calling the object that is waiting for its answer.
 * Everywhere else (the worker, hub objects) the ports are the plain stubs (`tenantPorts`).
 */
export function inProcessTenantPorts(
  env: ObjectBindings & { ATTACHMENTS: R2Bucket } & OutboundEnv,
  tenant: TenantApi,
  tenantId: string,
  requestOrigin?: string,
): TenantPorts {
  const stubs = tenantPorts(env, tenantId, requestOrigin);
  return { ...stubs, tenant, sessions: (key) => inProcessSession(tenant, stubs.sessions(key)) };
}

/** A session's stub with the tenant object's hand-offs in `startRun` and `inject`. */
function inProcessSession(tenant: TenantApi, session: SessionApi): SessionApi {
  return sessionWith(session, {
    async startRun(ref, request, seed, policy) {
      const claimed = await tenant.claimPendingSession(ref.key, "start");
      if (claimed && "refused" in claimed) throw rateLimited(claimed.refused.message, claimed.refused.retryAfterMs);
      return session.startRun(ref, { ...request, ...(claimed !== undefined ? { claimed } : {}) }, seed, policy);
    },
    async inject(ref, message) {
      const result = await session.inject(ref, message, true);
      if ("rejected" in result || !result.update) return result;
      const { update, ...appended } = result;
      await tenant.publish({ ...update, handedOff: true });
      return appended;
    },
  });
}
