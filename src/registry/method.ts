import { z } from "zod";
import type { TenantContext } from "../domain/context";
import type { ConnectionState } from "../gateway/connection";
import type { OperatorScope } from "../protocol/http";

/** What every gateway method's handler receives, whether or not it uses the connection. */
export type MethodCall<P> = {
  ctx: TenantContext;
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

/** A gateway method: scope, closed params schema and handler. */
export type MethodDefinition<S extends z.ZodType> = {
  /** Scope the caller needs; null = any authenticated connection. */
  scope: OperatorScope | null;
  params: S;
  handle(call: MethodCall<z.infer<S>>): Promise<unknown> | unknown;
  /** The caller hears the answer before the `sessions.changed` its request caused (as the real gateway). */
  answerFirst?: true;
  /** The run whose events must wait until this request is answered (`chat.send`'s ack, `agent`'s accepted). */
  runIdOf?(params: z.infer<S>): string;
  /**
   * The chat run a request would start (`chat.send`): a tenant limit's refusal is also sent to
   * the caller as that run's `chat` error, which the Control UI shows in the chat.
   */
  chatRunOf?(params: z.infer<S>): { runId: string; sessionKey: string };
};

/**
 * A method as a table holds it. The gateway parses the params with `params` before it calls
 * `handle` or `runIdOf`, which is what makes the (method-bivariant) widening below sound.
 */
export type Method = MethodDefinition<z.ZodType>;

/** Method name → method: what a slice registers and the gateway is handed. */
export type MethodTable = Readonly<Record<string, Method>>;

/** The one way to define a gateway method: the handler's params are typed from the schema. */
export function defineMethod<S extends z.ZodType>(definition: MethodDefinition<S>): Method {
  return definition;
}

/** Params the handler does not read: any object (or none), extra properties ignored. */
export const openParams = z.looseObject({}).nullish();

/** A method with nothing to report here: any params, a fixed answer, `scope` (read by default). */
export const emptyAnswer = (answer: () => unknown, scope: OperatorScope = "operator.read") =>
  defineMethod({ scope, params: openParams, handle: answer });

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
