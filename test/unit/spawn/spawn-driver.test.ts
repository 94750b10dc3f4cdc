import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AnnounceDelivery } from "../../../src/contracts/session-api";
import type { SpawnSpec } from "../../../src/model/spawn";
import { RunnerError, type RunnerOutcome } from "../../../src/runs/runners/runner";
import { SpawnDriver } from "../../../src/spawn/spawn-driver";
import { type ModelScript, reply, type SessionInstance, sessionWorld, settle, TENANT } from "../support/session-world";

// A sub-agent's session (src/spawn/spawn-driver.ts) wired as src/session/spawn-host.ts wires
// it, over in-memory ports: its run settles, the `spawn-announce` timer tells the requester
// (or, the requester gone, the requester's requester), then the child is deleted or archived.

const REQUESTER = "agent:main:main";
const GRANDPARENT = "agent:main:boss";

function spec(overrides: Partial<SpawnSpec> = {}): SpawnSpec {
  return {
    tenantId: TENANT,
    task: "find the answer",
    label: "research",
    mode: "run",
    cleanup: "keep",
    requesterKey: REQUESTER,
    requesterAgentId: "main",
    requesterIsSubagent: false,
    requesterSandboxed: false,
    requesterRunner: { type: "echo" },
    archiveAfterMinutes: 60,
    retainAttachments: false,
    transcriptBase: "~/.openclaw/agents",
    ...overrides,
  };
}

/** A child session running `model`, its spawn record written, and what its driver did. */
function child(model: ModelScript, options: { requesterGone?: boolean; sendHangsOnce?: boolean } = {}) {
  const sent: Array<{ key: string; announce: AnnounceDelivery }> = [];
  const did: string[] = [];
  let hang = options.sendHangsOnce ?? false;
  const driverOf = (session: SessionInstance) =>
    new SpawnDriver({
      store: session.stores.spawns,
      timers: session.timers,
      entry: () => session.transcript.entry(),
      snapshot: (runId) => session.lifecycle.snapshot(runId),
      recentMessages: (limit) =>
        session.store.tail({
          sessionId: session.transcript.entry()!.sessionId,
          limit,
          includeTools: true,
          maxBytes: 1_000_000,
        }).messages,
      sendAnnounce: async (key, _agentId, announce) => {
        if (hang) {
          hang = false;
          return new Promise<boolean>(() => {}); // the object dies while the requester is called
        }
        if (options.requesterGone && key === REQUESTER) return false;
        sent.push({ key, announce });
        return true;
      },
      archiveSelf: async () => void did.push("archive"),
      dropAttachments: async () => void did.push("drop attachments"),
      deleteSelf: async () => void did.push("delete"),
    });
  const world = sessionWorld(model, {
    // As session-parts: a settled run is a spawn's (announce) or a flow's.
    onSettled: (runId, session) => void driverOf(session).settled(runId),
    handlers: (session) => ({
      "spawn-announce": (runId, now) => driverOf(session).announce(runId, now),
      "spawn-archive": (runId, now) => driverOf(session).archive(runId, now),
    }),
  });
  return { world, sent, did, driverOf };
}

/** Starts the child's run with its spawn record, as sessions_spawn does. */
function spawn(session: SessionInstance, runId: string, overrides: Partial<SpawnSpec> = {}, timeoutSeconds?: number) {
  session.stores.spawns.insert(runId, spec(overrides), Date.now());
  session.start(runId, "find the answer", {
    input: { message: "find the answer", origin: "tool", ...(timeoutSeconds ? { timeoutSeconds } : {}) },
  });
}

beforeEach(() => void vi.spyOn(console, "warn").mockImplementation(() => {}));
afterEach(() => vi.restoreAllMocks());

describe("spawn driver over in-memory ports", () => {
  it("announces a completed child to its requester once, then keeps it and arms its archive", async () => {
    const { world, sent, did } = child(async () => reply("the answer is 42"));
    const { session } = world;
    spawn(session, "c1");
    await session.lifecycle.wait("c1", 5_000);
    expect(session.timers.has("spawn-announce", "c1")).toBe(true);
    await session.alarm();
    await session.alarm();
    expect(sent).toHaveLength(1);
    const [{ key, announce }] = sent as [{ key: string; announce: AnnounceDelivery }];
    expect(key).toBe(REQUESTER);
    expect(announce).toMatchObject({ runId: "c1:announce", deliver: true, runner: { type: "echo" } });
    expect(announce.text).toContain("the answer is 42");
    expect(announce.channelText).toContain('A background task "research" just completed successfully.');
    expect(session.stores.spawns.get("c1")).toMatchObject({ state: "announced", outcome: "ok" });
    expect(did).toEqual(["drop attachments"]);
    const archiveAt = session.stores.spawns.get("c1")!.updatedAt + 60 * 60_000;
    expect(session.timers.has("spawn-archive", "c1")).toBe(true);
    expect(session.timers.nextDue()).toBe(archiveAt);
    await session.alarm(archiveAt);
    expect(did).toEqual(["drop attachments", "archive"]);
    expect(session.stores.spawns.get("c1")?.state).toBe("archived");
  });

  it("announces a failed child with its error, and deletes it afterwards with cleanup `delete`", async () => {
    const { world, sent, did } = child(async () => {
      throw new RunnerError("model exploded");
    });
    const { session } = world;
    spawn(session, "c1", { cleanup: "delete" });
    await session.lifecycle.wait("c1", 5_000);
    await session.alarm();
    expect(sent).toHaveLength(1);
    expect(sent[0]!.announce.channelText).toContain("just failed: model exploded.");
    expect(sent[0]!.announce.text).toContain("the sub-agent session is deleted after this announce");
    expect(session.stores.spawns.get("c1")).toMatchObject({ state: "announced", outcome: "error" });
    expect(did).toEqual(["delete"]);
  });

  it("announces a child that timed out to the requester's requester when the requester is gone", async () => {
    const { world, sent } = child(() => new Promise<RunnerOutcome>(() => {}), { requesterGone: true });
    const { session } = world;
    spawn(session, "c1", { fallbackKey: GRANDPARENT, fallbackAgentId: "main", requesterIsSubagent: true }, 5);
    await settle();
    await session.alarm(Date.now() + 5_000);
    expect(session.lifecycle.snapshot("c1")?.status).toBe("timeout");
    await session.alarm();
    expect(sent.map((s) => s.key)).toEqual([GRANDPARENT]);
    // The fallback is told to deliver even though the requester (a sub-agent) would not have.
    expect(sent[0]!.announce).toMatchObject({ runId: "c1:announce", deliver: true });
    expect(sent[0]!.announce.text).toContain("the run hit its runTimeoutSeconds");
    expect(session.stores.spawns.get("c1")?.outcome).toBe("timeout");
  });

  it("repeats the announce with the same run id after the object died while sending it", async () => {
    const { world, sent, driverOf } = child(async () => reply("done"), { sendHangsOnce: true });
    spawn(world.session, "c1");
    await world.session.lifecycle.wait("c1", 5_000);
    void world.session.alarm();
    await settle();
    expect(sent).toHaveLength(0);
    expect(world.session.stores.spawns.get("c1")?.state).toBe("running");

    const after = world.restart();
    after.recover();
    driverOf(after).reconcile();
    await after.alarm();
    expect(sent.map((s) => s.announce.runId)).toEqual(["c1:announce"]);
    expect(after.stores.spawns.get("c1")?.state).toBe("announced");
  });
});
