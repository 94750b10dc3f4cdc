import { z } from "zod";
import type { TenantContext } from "../domain/context";
import type { OperatorScope } from "../protocol/http";

/**
 * A gateway method that needs only its tenant context and params (no connection state): the
 * shape of the method tables beside methods.ts (Control UI, automations, config).
 */
export type SimpleMethod = {
  scope: OperatorScope | null;
  params: z.ZodType;
  handle(call: { ctx: TenantContext; params: never }): Promise<unknown> | unknown;
};

/** Types the handler's params from the schema, then stores it in a table of SimpleMethods. */
export const simpleMethod = <S extends z.ZodType>(def: {
  scope: OperatorScope | null;
  params: S;
  handle(call: { ctx: TenantContext; params: z.infer<S> }): Promise<unknown> | unknown;
}) => def as unknown as SimpleMethod;

/** Params the handler does not read: any object (or none), extra properties ignored. */
export const openParams = z.looseObject({}).nullish();

/** A method with nothing to report here: any params, a fixed answer, `scope` (read by default). */
export const emptyAnswer = (answer: () => unknown, scope: OperatorScope = "operator.read") =>
  simpleMethod({ scope, params: openParams, handle: answer });
