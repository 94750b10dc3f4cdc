import { describe, expect, it } from "vitest";
import { call, until } from "../support/helpers";
import { toolLoopTenant, transcript } from "../support/tool-loop-tenant";

/**
 * Every run start passes the tenant's run admission, door or not (issue 44, finding 1): a model
 * that answers every turn with a sessions_send (and the follow-up flows' ping-pong and announce
 * steps) starts no more runs than `runStartsPerMinute`.
 */
describe("internal runs are admitted as door runs are", () => {
  it("a chain of sessions_send calls starts at most runStartsPerMinute runs; the rest are the tool's refusal", async () => {
    const id = "adm-chain";
    const { token, client } = await toolLoopTenant(id, {
      limits: { runStartsPerMinute: 5 },
      tools: { sessions: { visibility: "all" } },
    });
    // The target exists (a message without a run: no run start).
    const seed = await call(`/t/${id}/v1/sessions/agent:main:b/messages`, {
      method: "POST",
      token,
      json: { role: "user", content: "seed" },
    });
    expect(seed.status, seed.text).toBe(201);
    // The model calls sessions_send on every round of its run; each target run's message makes
    // the target's model do the same back, so every run asks for more runs.
    const back =
      'LOOP sessions_send {\\"sessionKey\\":\\"agent:main:main\\",\\"message\\":\\"ping\\",\\"timeoutSeconds\\":0}';
    const loop = `LOOP sessions_send {"sessionKey":"agent:main:b","message":"${back}","timeoutSeconds":0}`;
    await client.request("chat.send", { sessionKey: "main", message: loop, idempotencyKey: "adm-chain-1" });
    await client.waitFor(
      (f) => f.event === "chat" && f.payload.runId === "adm-chain-1" && ["final", "error"].includes(f.payload.state),
      30_000,
    );
    // Settled: no run in flight, twice in a row.
    const inFlight = async () => (await call(`/t/${id}/v1/limits`, { token })).data.limits.runsInFlight.used as number;
    let quiet = 0;
    await until(
      async () => {
        quiet = (await inFlight()) === 0 ? quiet + 1 : 0;
        return quiet;
      },
      (n) => n >= 2,
      30_000,
    );
    const main = await transcript(id, token, "main");
    const b = await transcript(id, token, "agent:main:b");
    // Every run start writes its user message (chat.send's, a sessions_send target's, a flow step's).
    const runs = [...main, ...b].filter((m) => m.role === "user" && m.content !== "seed").length;
    expect(runs).toBeGreaterThanOrEqual(2);
    expect(runs).toBeLessThanOrEqual(5);
    const refusals = main
      .filter((m) => m.role === "toolResult")
      .filter((m) => JSON.stringify(m.content).includes("Too many run starts"));
    expect(refusals.length).toBeGreaterThan(0);
    expect(refusals[0]).toMatchObject({ toolName: "sessions_send", isError: true });
  });
});
