import { z } from "zod";
import { defineMethod, type MethodCall, type MethodTable } from "../../registry/method";
import {
  cancelSetupWizard,
  nextSetupWizard,
  type SetupWizardHolder,
  setupWizardStatus,
  startSetupWizard,
} from "./setup-wizard";

/**
 * OpenClaw's `wizard.start` / `wizard.next` / `wizard.cancel` / `wizard.status` (its protocol's
 * closed params), as the Control UI's Channels › Set up calls them: the flow is
 * src/features/channels/setup-wizard.ts, the wizard kept by the connection. operator.admin, as the
 * config writes they end in.
 */

const sessionId = z.string().min(1);

/** The calling connection's wizard, read from and written to its attachment. */
function holderOf(connection: MethodCall<unknown>["connection"]): SetupWizardHolder {
  return { get: () => connection.state.wizard, set: (wizard) => connection.setWizard(wizard) };
}

export const WIZARD_METHODS: MethodTable = {
  "wizard.start": defineMethod({
    scope: "operator.admin",
    roles: [],
    params: z.strictObject({
      mode: z.enum(["local", "remote"]).optional(),
      workspace: z.string().optional(),
      installDaemon: z.boolean().optional(),
      flow: z.enum(["setup", "channels"]).optional(),
      channel: z.string().min(1).max(64).optional(),
    }),
    handle: ({ params, connection }) => startSetupWizard(holderOf(connection), params),
  }),
  "wizard.next": defineMethod({
    scope: "operator.admin",
    roles: ["config", "secrets"],
    params: z.strictObject({
      sessionId,
      answer: z.strictObject({ stepId: z.string().min(1), value: z.unknown().optional() }).optional(),
    }),
    handle: ({ ctx, params, connection }) => nextSetupWizard(ctx, holderOf(connection), params),
  }),
  "wizard.cancel": defineMethod({
    scope: "operator.admin",
    roles: [],
    params: z.strictObject({ sessionId, closeInput: z.boolean().optional() }),
    handle: ({ params, connection }) => cancelSetupWizard(holderOf(connection), params),
  }),
  "wizard.status": defineMethod({
    scope: "operator.admin",
    roles: [],
    params: z.strictObject({ sessionId }),
    handle: ({ params, connection }) => setupWizardStatus(holderOf(connection), params),
  }),
};
