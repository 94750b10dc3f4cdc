/**
 * How the owner approves a pairing code on this service, for the message an unknown sender gets.
 * OpenClaw's message names its CLI (`openclaw pairing approve <channel> <code>`), which cannot
 * reach this service: here it is the Control UI's Channels page or the HTTP call, in the same
 * place and code-block format. Pure.
 */

export const PAIRING_APPROVE_ASK = "Ask the bot owner to approve it on the Control UI's Channels page, or with:";

/** The HTTP call that approves `code` (the tenant's base URL in front). */
export function pairingApproveCall(channel: string, code: string): string {
  return `POST /v1/channels/${channel}/pairing/approve {"code":"${code}"}`;
}
