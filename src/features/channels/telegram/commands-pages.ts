import { telegramCommandsPage } from "../../../domain/chat-commands";
import { commandsPageOfData } from "../../../domain/commands-list";
import { type ChannelTurn, COMMANDS_PAGE_KIND, type InboundDecision } from "../adapter";

/**
 * A press of a `/commands` page button, answered as OpenClaw 2026.9.6 answers it (recorded):
 * `answerCallbackQuery`, then `editMessageText` of the pressed message to the asked page with its
 * keyboard (plain text, the lines indented); the page counter (`commands_page_noop`) is only
 * answered. No turn: no typing, no run, nothing in the transcript. Whoever's press would be a turn
 * in that chat may page (the caller decided that); null when the data is no page button's.
 */
export function commandsPagePress(
  press: { data: string; messageId: number; callbackQueryId: string },
  turn: ChannelTurn,
  /** The agent of the chat's session, when the button's data names none. */
  agentId: string,
): InboundDecision | null {
  const asked = commandsPageOfData(press.data);
  if (!asked) return null;
  const ack = { chatId: turn.ack.chatId, callbackQueryId: press.callbackQueryId, typing: false };
  if (asked.page === "noop") return { action: "answer", answer: { ack } };
  const page = telegramCommandsPage(asked.page, asked.agentId ?? agentId, true);
  const delivery = {
    kind: COMMANDS_PAGE_KIND,
    target: { ...turn.replyTarget, editMessageId: press.messageId },
    message: page.text,
    ...(page.keyboard ? { blocks: [{ inline_keyboard: page.keyboard }] } : {}),
  };
  return { action: "answer", answer: { ack, delivery } };
}
