import { describe, expect, it } from "vitest";
import type { StartRun } from "../../../src/contracts/session-api";
import { RunAdmission } from "../../../src/runs/run-admission";
import { deferred, REF, reply, type SessionInstance, sessionWorld, settle } from "../support/session-world";

// Run admission of one session (src/runs/run-admission.ts) in front of the real lifecycle:
// OpenClaw aborts a run right after chat.send, so an abort can land while the start is still
// on its way (awaiting a reset) or even before it; either way the run is recorded aborted and
// its model is never called.

function admit(session: SessionInstance, reset: () => Promise<unknown> = async () => undefined) {
  return new RunAdmission({
    transcript: session.store,
    runs: session.stores.runs,
    lifecycle: session.lifecycle,
    entry: () => session.transcript.entry(),
    ensureEntry: (ref, seed, now) => session.transcript.ensureEntry(ref, seed, now),
    reset,
    publish: async () => {},
    flush: async () => {},
    startFlow: () => {
      throw new Error("no flows here");
    },
  });
}

const request = (runId: string, extra: Partial<StartRun> = {}): StartRun => ({
  runId,
  input: { message: "hi", origin: "chat.send" },
  runner: { type: "echo" },
  userMessage: { role: "user", content: "hi", timestamp: Date.now() },
  ...extra,
});

describe("run admission over in-memory ports", () => {
  it("records a run aborted when the abort lands while its start awaits a reset; a second start of it is in flight", async () => {
    const world = sessionWorld(async () => reply("should not run"));
    const resetDone = deferred<unknown>();
    const admission = admit(world.session, () => resetDone.promise);
    const starting = admission.start(REF, request("r1", { resetFirst: "reset" }));
    await settle();
    expect(await admission.start(REF, request("r1"))).toMatchObject({ status: "in_flight" });
    expect(admission.abort("r1")).toEqual({ abortedRunId: "r1", status: "aborted" });
    resetDone.resolve(undefined);
    expect(await starting).toMatchObject({ runId: "r1", status: "aborted", stopReason: "rpc" });
    await settle();
    expect(world.session.attempts).toEqual([]);
    expect(world.session.messages()).toEqual([]);
    expect(world.session.stores.runs.get("r1")?.state).toBe("aborted");
  });

  it("aborts a run whose abort arrived before its start (the tenant had recorded it), and runs the next one", async () => {
    const world = sessionWorld(async () => reply("ran"));
    const admission = admit(world.session);
    expect(admission.abort("r1", "rpc", ["r1"])).toEqual({ abortedRunId: "r1", status: "aborted" });
    expect(await admission.start(REF, request("r1"))).toMatchObject({ status: "aborted" });
    expect(await admission.start(REF, request("r2", { waitMs: 5_000 }))).toMatchObject({
      status: "started",
      outcome: { status: "ok", reply: "ran" },
    });
    expect(world.session.attempts).toEqual(["r2"]);
  });
});
