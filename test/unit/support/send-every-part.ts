import type { ChannelSender, SendOutcome } from "../../../src/features/channels/adapter";

/**
 * A delivery's parts sent call after call from `fromPart`, as the outbox sends them (without its
 * pace): each call sends one part and says `moreParts`; the last outcome (a failure stops it).
 */
export async function sendEveryPart(
  sender: Pick<ChannelSender, "send">,
  delivery: Parameters<ChannelSender["send"]>[0],
  fromPart = 0,
): Promise<SendOutcome> {
  let outcome = await sender.send(delivery, fromPart);
  while (outcome.moreParts && outcome.error === undefined) outcome = await sender.send(delivery, outcome.partsSent);
  return outcome;
}
