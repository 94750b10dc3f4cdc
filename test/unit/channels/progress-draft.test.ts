import { describe, expect, it } from "vitest";
import type { LiveEvent } from "../../../src/contracts/tenant-api";
import { ProgressDrafts } from "../../../src/features/channels/progress-draft";

/**
 * When the progress draft is shown and removed (the workerd test test/workerd/channels/channels-progress.test.ts
 * runs it against the peer's Bot API): shown once at a run's first tool call, removed once its
 * reply is delivered or given up, or at its end when it owes no reply.
 */

type Event = Omit<LiveEvent, "afterSeq">;
const toolStart = (runId: string): Event => ({
  event: "agent",
  payload: { runId, stream: "tool", data: { phase: "start", name: "sessions_list" }, seq: 1, ts: 0 },
});
const runEnd = (runId: string): Event => ({ event: "sessions.changed", payload: { phase: "end", runId, ts: 0 } });
const delivery = (deliveryId: string, deliveryStatus: string): Event => ({
  event: "sessions.changed",
  payload: { reason: "delivery", deliveryId, deliveryStatus, deliveryKind: "channel-reply" },
});

function drafts(reply: "pending" | "settled" | "none") {
  const calls: string[] = [];
  const pending: Promise<unknown>[] = [];
  const subject = new ProgressDrafts({
    replyTargetOf: (runId) => (runId.startsWith("tg") ? { channel: "telegram", to: "telegram:5" } : undefined),
    draftChat: async () => ({
      show: async () => {
        calls.push("show");
        return 7;
      },
      remove: async (id) => void calls.push(`remove ${id}`),
    }),
    replyDelivery: () => reply,
    runOfDelivery: (id) => id.replace(/^d-/, ""),
    waitUntil: (promise) => void pending.push(promise),
  });
  return { subject, calls, settle: () => Promise.all(pending) };
}

/** Offers `events` in order to a fresh ProgressDrafts (the reply owed as `reply`); the draft's calls once settled. */
async function callsAfter(reply: "pending" | "settled" | "none", events: Event[]): Promise<string[]> {
  const { subject, calls, settle } = drafts(reply);
  for (const event of events) subject.offer(event);
  await settle();
  return calls;
}

describe("ProgressDrafts", () => {
  it("shows the draft once per run and removes it when the reply is delivered, not at the run's end", async () => {
    const opened = [toolStart("tg1"), toolStart("tg1"), runEnd("tg1")];
    expect(await callsAfter("pending", opened)).toEqual(["show"]);
    const delivered = [delivery("d-tg1", "pending"), delivery("d-tg1", "delivered"), delivery("d-tg1", "delivered")];
    expect(await callsAfter("pending", [...opened, ...delivered])).toEqual(["show", "remove 7"]);
  });

  it("removes it at the end of a run that owes no reply; shows none for a run without a chat", async () => {
    const events = [toolStart("tg2"), toolStart("webchat"), runEnd("tg2")];
    expect(await callsAfter("none", events)).toEqual(["show", "remove 7"]);
  });
});
