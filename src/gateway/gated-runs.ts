import type { TenantContext, TenantRole } from "../domain/context";
import { sessionWith } from "../stubs";

/**
 * `chat.send` as the gateway answers it: its turn is admitted but starts only when the
 * answer's `gate` is disposed (`StartRun.hold`), which the gateway does once the answer is on
 * the wire, so a `chat.abort` sent right after it finds the run not started, as with
 * OpenClaw. A fixed reply (a command's answer, a `/send` confirmation) is not held.
 */
export function gatedRunStarts<Role extends TenantRole>(ctx: TenantContext<Role>): TenantContext<Role> {
  return {
    ...ctx,
    sessions: (key) => {
      const session = ctx.sessions(key);
      return sessionWith(session, {
        startRun: (ref, request, seed, policy) =>
          session.startRun(
            ref,
            request.input.fixedReply === undefined ? { ...request, hold: true } : request,
            seed,
            policy,
          ),
      });
    },
  };
}
