import { z } from "zod";
import { channelsStatus, controlUiPairingApprove, controlUiPairingList } from "../channels/operations";
import { type SimpleMethod, simpleMethod } from "./simple-method";

/**
 * The Control UI's Channels page: `channels.status` and the DM pairing queue
 * (`channels.pairing.list` / `channels.pairing.approve`), in OpenClaw's shapes (src/channels/).
 * OpenClaw's `operator.pairing` scope is not issued here; pairing takes operator.admin.
 */
export const CHANNEL_METHODS: Record<string, SimpleMethod> = {
  "channels.status": simpleMethod({
    scope: "operator.read",
    params: z.looseObject({}).nullish(),
    handle: ({ ctx }) => channelsStatus(ctx),
  }),
  "channels.pairing.list": simpleMethod({
    scope: "operator.admin",
    params: z.looseObject({ channel: z.string().optional(), accountId: z.string().optional() }).nullish(),
    handle: ({ ctx, params }) => controlUiPairingList(ctx, { channel: params?.channel }),
  }),
  "channels.pairing.approve": simpleMethod({
    scope: "operator.admin",
    params: z.looseObject({
      channel: z.string().min(1),
      accountId: z.string().min(1),
      requestId: z.string().min(1),
      notify: z.boolean().optional(),
      bootstrapCommandOwner: z.boolean().optional(),
    }),
    handle: ({ ctx, params }) => controlUiPairingApprove(ctx, params),
  }),
};
