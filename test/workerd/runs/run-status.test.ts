import { afterEach, describe, expect, inject, it, vi } from "vitest";
import { call, freshTenant, grantDeploymentKey, issueToken, type TestTenant, user } from "../support/helpers";

const peer = `http://127.0.0.1:${inject("peerPort")}`;

/** Starts a run by ingest and returns its id. */
async function startRun(t: TestTenant, key: string, text: string) {
  const res = await t.append(key, user(text, { run: true }));
  expect(res.status).toBe(201);
  return res.data.runId as string;
}

const withRunner = (t: TestTenant, runner: Record<string, unknown>) =>
  t.config({ agents: { list: [{ id: "main", default: true, runner }] } });

afterEach(() => vi.restoreAllMocks());

describe("GET /v1/runs/{runId}", () => {
  it("shows an ok run's status, timestamps, reply and usage once waited for", async () => {
    const t = await freshTenant("runs");
    const runId = await startRun(t, "main", "hello runs");
    const res = await t.call(`/v1/runs/${runId}?wait=10`);
    expect(res.status).toBe(200);
    const run = res.data.run;
    expect(run).toMatchObject({
      runId,
      sessionKey: "agent:main:main",
      status: "ok",
      done: true,
      origin: "ingest",
      runner: "echo",
      message: "hello runs",
      reply: "ECHO: hello runs",
      attempts: 1,
      deferred: false,
    });
    expect(run.usage.totalTokens).toBeGreaterThan(0);
    expect(run.createdAt).toBeTypeOf("number");
    expect(run.endedAt).toBeGreaterThanOrEqual(run.startedAt);
    expect(run.durationMs).toBe(run.endedAt - run.startedAt);
    expect(run.replySeq).toBe(run.messageSeq + 1);
  });

  it("shows the error text of a failed run: model unreachable, model key missing, webhook 5xx", async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ type: "openai", baseUrl: "http://127.0.0.1:1/v1", model: "m" }, /^model endpoint unreachable/],
      [
        { type: "openai", baseUrl: `${peer}/v1`, model: "m", apiKeySecret: "MODEL_KEY_NOT_SET" },
        /^model API key secret MODEL_KEY_NOT_SET is not set$/,
      ],
      [{ type: "webhook", url: `${peer}/webhook/fail` }, /^webhook answered 503/],
    ];
    for (const [runner, error] of cases) {
      const t = await freshTenant("runs-fail");
      await grantDeploymentKey(t.id, "MODEL_KEY_NOT_SET");
      expect((await withRunner(t, runner)).status).toBe(200);
      const runId = await startRun(t, "main", "will fail");
      const { run } = (await t.call(`/v1/runs/${runId}?wait=10`)).data;
      expect(run.status).toBe("error");
      expect(run.done).toBe(true);
      expect(run.error).toMatch(error);
      expect(run.reply).toBeUndefined();
    }
  });

  it("logs a runner failure as one JSON line with tenant, session, run and the error, without secrets", async () => {
    const warn = vi.spyOn(console, "warn");
    const t = await freshTenant("runs-log");
    await withRunner(t, { type: "openai", baseUrl: `${peer}/v1`, model: "fail500" });
    const runId = await startRun(t, "main", "log me");
    await t.call(`/v1/runs/${runId}?wait=10`);
    const lines = warn.mock.calls.map((args) => String(args[0])).filter((line) => line.includes('"run.failed"'));
    const line = lines.map((l) => JSON.parse(l)).find((l) => l.run === runId);
    expect(line).toMatchObject({
      level: "warn",
      event: "run.failed",
      tenant: t.id,
      session: "agent:main:main",
      run: runId,
      runner: "openai",
      status: "error",
    });
    expect(line.error).toMatch(/^model endpoint answered 500/);
    expect(JSON.stringify(line)).not.toContain(t.token);
  });

  it("long-polls with ?wait: answers with the run still running, then with its end once it ends", async () => {
    const t = await freshTenant("runs-wait");
    await withRunner(t, { type: "webhook", url: `${peer}/webhook/async` });
    const runId = await startRun(t, "main", "deferred");
    const pending = await t.call(`/v1/runs/${runId}?wait=0.3`);
    expect(pending.status).toBe(200);
    expect(pending.data.run).toMatchObject({ status: "running", done: false, deferred: true });
    expect(pending.data.waitedMs).toBeTypeOf("number");

    const waiting = t.call(`/v1/runs/${runId}?wait=20`);
    const token = await runTokenOf(runId);
    const done = await call(`/t/${t.id}/v1/runs/${runId}/complete`, {
      method: "POST",
      token,
      json: { reply: "finished later" },
    });
    expect(done.status).toBe(200);
    const ended = await waiting;
    expect(ended.data.run).toMatchObject({ status: "ok", done: true, reply: "finished later" });
  });

  it("answers 404 for an unknown run and 400 for a wait that is not a number", async () => {
    const t = await freshTenant("runs-404");
    const missing = await t.call("/v1/runs/no-such-run");
    expect(missing.status).toBe(404);
    expect(missing.data).toEqual({ ok: false, error: { type: "not_found", message: "Run not found: no-such-run" } });
    const runId = await startRun(t, "main", "x");
    for (const wait of ["abc", "-1"]) {
      const bad = await t.call(`/v1/runs/${runId}?wait=${wait}`);
      expect(bad.status).toBe(400);
      expect(bad.data.error.type).toBe("invalid_request");
    }
  });

  it("needs operator.read: a read-only token may read runs, another tenant's token may not", async () => {
    const t = await freshTenant("runs-scope");
    const runId = await startRun(t, "main", "scoped");
    const reader = await issueToken(t.id, ["operator.read"]);
    expect((await call(`/t/${t.id}/v1/runs/${runId}`, { token: reader.token })).status).toBe(200);
    const other = await freshTenant("runs-other");
    expect((await call(`/t/${t.id}/v1/runs/${runId}`, { token: other.token })).status).toBe(401);
    expect((await other.call(`/v1/runs/${runId}`)).status).toBe(404);
  });
});

describe("GET /v1/sessions/{key}/runs", () => {
  it("lists a session's runs newest first, page by page", async () => {
    const t = await freshTenant("runs-list");
    const ids: string[] = [];
    for (const text of ["one", "two", "three", "four", "five"]) {
      ids.push(await startRun(t, "main", text));
      await t.call(`/v1/runs/${ids.at(-1)}?wait=10`);
    }
    const seen: string[] = [];
    let cursor = "";
    for (let page = 0; page < 5; page++) {
      const res = await t.call(`/v1/sessions/main/runs?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      expect(res.status).toBe(200);
      expect(res.data.sessionKey).toBe("agent:main:main");
      seen.push(...res.data.runs.map((r: any) => r.runId));
      if (!res.data.hasMore) {
        expect(res.data.nextCursor).toBeUndefined();
        break;
      }
      cursor = res.data.nextCursor;
    }
    expect(seen).toEqual([...ids].reverse());
    const first = (await t.call("/v1/sessions/main/runs")).data.runs[0];
    expect(first).toMatchObject({ runId: ids[4], status: "ok", reply: "ECHO: five" });
  });

  it("answers 404 for an unknown session and 400 for a bad limit or cursor", async () => {
    const t = await freshTenant("runs-list-404");
    const missing = await t.call("/v1/sessions/agent:main:nobody/runs");
    expect(missing.status).toBe(404);
    expect(missing.data.error.message).toBe("Session not found: agent:main:nobody");
    await startRun(t, "main", "x");
    for (const query of ["limit=0", "limit=abc", "cursor=seq:3"]) {
      expect((await t.call(`/v1/sessions/main/runs?${query}`)).status).toBe(400);
    }
  });
});

/** The run token the webhook peer received for a run (it records every request). */
async function runTokenOf(runId: string): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const recorded = (await (await fetch(`${peer}/control/recorded`)).json()) as Array<{ body: any }>;
    const hit = recorded.find((r) => r.body?.runId === runId);
    if (hit) return hit.body.runToken;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no webhook request recorded for ${runId}`);
}
