import { PAIRING_APPROVE_ASK, pairingApproveCall } from "../pairing-approval";

/**
 * The pairing message an unknown Teams sender gets: OpenClaw's text, with this service's way to
 * approve (Teams renders the fenced blocks from `textFormat: "markdown"`). Pure.
 */
export function msTeamsPairingMessage(senderId: string, code: string): string {
  return (
    `OpenClaw: access not configured.\n\nYour Microsoft Teams user id: ${senderId}\nPairing code:\n\n` +
    `\`\`\`\n${code}\n\`\`\`\n${PAIRING_APPROVE_ASK}\n\n` +
    `\`\`\`\n${pairingApproveCall("msteams", code)}\n\`\`\``
  );
}
