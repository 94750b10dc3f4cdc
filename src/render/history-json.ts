import type { MessageRecord } from "../model/message-record";

/** OpenClaw's history page JSON, built from pre-serialized messages (items and messages alike). */
export function historyPageJson(page: {
  sessionKey: string;
  messages: MessageRecord[];
  hasMore: boolean;
  nextCursor?: string;
}): string {
  const list = `[${page.messages.map((m) => m.json).join(",")}]`;
  const nextCursor = page.nextCursor === undefined ? "" : `,"nextCursor":${JSON.stringify(page.nextCursor)}`;
  return `{"sessionKey":${JSON.stringify(page.sessionKey)},"items":${list},"messages":${list},"hasMore":${page.hasMore}${nextCursor}}`;
}
