/** A stored message ready for the wire: its JSON already carries `__openclaw`. */
export type MessageRecord = {
  seq: number;
  id: string;
  role: string;
  createdAt: number;
  json: string;
  /** The run that wrote it (a run's reply). */
  runId?: string;
};

/** A transcript message as stored: OpenClaw's message object with its role (and `__openclaw` meta). */
export type StoredMessage = Record<string, unknown> & { role: string };

/** The message a record carries (records hold it serialized, so pages pass through unparsed). */
export function parseMessage(record: Pick<MessageRecord, "json">): StoredMessage {
  return JSON.parse(record.json) as StoredMessage;
}
