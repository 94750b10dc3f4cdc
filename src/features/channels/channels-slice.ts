import { z } from "zod";
import { defineMethod, openParams } from "../../registry/method";
import type { Slice } from "../../registry/slice";
import { channelsStatus, controlUiPairingApprove, controlUiPairingList } from "./channel-admin";
import { CHANNEL_OPERATIONS } from "./channel-operations";
import { channelIngress, channelRoutes } from "./channel-routes";
import { WIZARD_METHODS } from "./wizard-methods";

/**
 * Chat platform channels (src/features/channels/): their webhooks, their `/v1/channels` routes and the
 * Control UI's Channels page — `channels.status` and the DM pairing queue
 * (`channels.pairing.list` / `channels.pairing.approve`) in OpenClaw's shapes. OpenClaw's
 * `operator.pairing` scope is not issued here; pairing takes operator.admin.
 */
export const channelsSlice: Slice = {
  name: "channels",
  methods: {
    "channels.status": defineMethod({
      scope: "operator.read",
      roles: [],
      params: openParams,
      handle: ({ ctx }) => channelsStatus(ctx),
    }),
    "channels.pairing.list": defineMethod({
      scope: "operator.admin",
      roles: [],
      params: z.object({ channel: z.string().optional(), accountId: z.string().optional() }),
      handle: ({ ctx, params }) => controlUiPairingList(ctx, { channel: params.channel }),
    }),
    "channels.pairing.approve": defineMethod({
      scope: "operator.admin",
      roles: [],
      params: z.object({
        channel: z.string().min(1),
        accountId: z.string().min(1),
        requestId: z.string().min(1),
        notify: z.boolean().optional(),
        bootstrapCommandOwner: z.boolean().optional(),
      }),
      handle: ({ ctx, params }) => controlUiPairingApprove(ctx, params),
    }),
    // Channels › Set up (OpenClaw's wizard.*, the channels flow).
    ...WIZARD_METHODS,
  },
  // Chat platforms' webhooks (docs/channels.md) are authenticated by their own secret, not a bearer token.
  routes: { ingress: channelIngress, tenant: [channelRoutes] },
  openApi: CHANNEL_OPERATIONS,
};
