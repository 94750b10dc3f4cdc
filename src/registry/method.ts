import { z } from "zod";
import type { TenantContext, TenantRole } from "../domain/context";
import type { ConnectionState } from "../gateway/connection";
import type { OperatorScope } from "../protocol/http";

/**
 * What a gateway method's handler receives: its context offers only the tenant roles the method
 * declared (`roles`), so a handler reaching for another one fails to typecheck.
 */
export type MethodCall<P, Role extends TenantRole = TenantRole> = {
  ctx: TenantContext<Role>;
  params: P;
  /** The params as sent (before properties with no feature here were left out). */
  rawParams: unknown;
  connection: {
    state: ConnectionState;
    setSessionsSubscription(on: boolean): void;
    setMessageSubscription(key: string, on: boolean): void;
    /** Keeps (or drops) the connection's setup wizard in its attachment. */
    setWizard(wizard: ConnectionState["wizard"]): void;
  };
};

/**
 * A method's params: one zod object per method (absent or null params arrive as `{}`). Unknown
 * properties are ignored (`z.object`) as the real gateway's clients send more than a method
 * knows, refused where OpenClaw's schema is closed and its clients send nothing else
 * (`z.strictObject`, the wizard), kept only for a handler that passes the rest on
 * (`z.looseObject`); `health` alone takes anything, as the real gateway does.
 */
export type MethodParams = z.ZodObject | z.ZodUnknown;

/** The params' property that names a session (OpenClaw's session mutation target fields). */
export type SessionParam<P> = Extract<keyof P, "key" | "sessionKey">;

/** Everything the gateway needs to know about a method, declared in one place. */
export type MethodDefinition<S extends MethodParams, Role extends TenantRole> = {
  /** Scope the caller needs; null = any authenticated connection. */
  scope: OperatorScope | null;
  /** The tenant object's roles the handler calls (contracts/tenant-api.ts); `[]`: none. */
  roles: readonly Role[];
  params: S;
  /**
   * The session it changes, by the param naming it: without a usable one OpenClaw refuses the
   * request (`SESSION_MUTATION_TARGET_REQUIRED`) before it checks params, except for admin
   * callers of a method that starts no run (gateway/session-target.ts).
   */
  mutatesSession?: SessionParam<z.infer<S>>;
  /**
   * The run a request starts: its events wait until this request is answered (`chat.send`'s
   * ack, `agent`'s accepted), and admins too need a session target (OpenClaw's run starts).
   */
  startsRun?: {
    runIdOf(params: z.infer<S>): string;
    /**
     * The chat run (`chat.send`): a tenant limit's refusal is also sent to the caller as that
     * run's `chat` error, which the Control UI shows in the chat.
     */
    chatRunOf?(params: z.infer<S>): { runId: string; sessionKey: string };
  };
  /** The caller hears the answer before the `sessions.changed` its request caused (as the real gateway). */
  answerFirst?: true;
  handle(call: MethodCall<z.infer<S>, Role>): Promise<unknown> | unknown;
};

/**
 * A method as a table holds it. The gateway parses the params with `params` before it calls
 * `handle` or `startsRun`, which is what makes the (method-bivariant) widening below sound; the
 * context it passes has a tenant port of the declared roles' methods only (gateway/requests.ts).
 */
export type Method = Omit<MethodDefinition<MethodParams, TenantRole>, "mutatesSession"> & {
  mutatesSession?: "key" | "sessionKey";
};

/** Method name → method: what a slice registers and the gateway is handed. */
export type MethodTable = Readonly<Record<string, Method>>;

/**
 * The one way to define a gateway method: the handler's params are typed from the schema and
 * its context from the declared roles.
 */
export function defineMethod<S extends MethodParams, Role extends TenantRole = never>(
  definition: MethodDefinition<S, Role>,
): Method {
  return definition as Method;
}

/** Params the handler does not read: any object (or none), extra properties ignored. */
export const openParams = z.object({});

/** A method with nothing to report here: any params, a fixed answer, `scope` (read by default). */
export const emptyAnswer = (answer: () => unknown, scope: OperatorScope = "operator.read") =>
  defineMethod({ scope, roles: [], params: openParams, handle: answer });

/** An answer, then work that must follow it on the wire (a held run is released). */
export class AnswerThen {
  constructor(
    readonly payload: unknown,
    readonly after: () => Promise<unknown>,
  ) {}
}

/**
 * A method that answers the same request id twice (OpenClaw's `agent`): first the accepted
 * payload, then the final response when the run ends.
 */
export class TwoPhase {
  constructor(
    readonly accepted: unknown,
    readonly final: Promise<{ ok: true; payload: unknown } | { ok: false; payload: unknown; message: string }>,
  ) {}
}
