import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { TenantContext } from "../../../src/domain/context";
import { chatCompletions } from "../../../src/features/openai/chat-handler";
import { openAiErrorBody, toOpenAiError } from "../../../src/features/openai/errors";
import { responses } from "../../../src/features/openai/responses-handler";
import type { AppEnv } from "../../../src/http/context";

/**
 * The calls an OpenAI route makes to the tenant and session objects before its run starts,
 * counted on fakes of both: one tenant call (meter, session, run id) and one session call
 * (the start, with the live text when streamed), whatever the route.
 */

const PREVIOUS_KEY = "agent:main:openresponses:earlier";

/** A tenant context whose objects log every call (`tenant.x`, `session.x`) and answer a one-word run. */
function countingContext(limited = false) {
  const calls: string[] = [];
  const sessionKeys: string[] = [];
  const tenantAnswers: Record<string, (...args: never[]) => unknown> = {
    runKey: () => PREVIOUS_KEY,
    admit: () => ({ granted: 1, retryAfterMs: 0, windowEndsAt: 0, perMinute: 60 }),
    recordRunStart: (_runId: string, key: string) => ({ owner: key }),
    admitCompletion: (_runId: string, key: string, continues?: { keyPrefixes: string[] }) => {
      if (limited) return { limited: { granted: 0, retryAfterMs: 2_500, windowEndsAt: 0, perMinute: 4 } };
      const continued = continues?.keyPrefixes.some((prefix) => PREVIOUS_KEY.startsWith(prefix));
      const runKey = continued ? PREVIOUS_KEY : key;
      return { key: runKey, recorded: { owner: runKey } };
    },
  };
  const sessionAnswers: Record<string, (...args: never[]) => unknown> = {
    followRun: () => tapOf("Hi"),
    startRun: (_ref: unknown, request: { runId: string; follow?: boolean }) => ({
      runId: request.runId,
      status: "started",
      queued: false,
      sessionId: "s1",
      ...(request.follow ? { tap: tapOf("Hi") } : {}),
    }),
    waitRun: (runId: string) => ({ runId, status: "ok", state: "final", reply: "Hi", stopReason: "stop" }),
    abortRun: () => ({ aborted: false }),
  };
  const logged = (prefix: string, answers: Record<string, (...args: never[]) => unknown>) =>
    new Proxy(
      {},
      {
        get: (_target, name: string) => {
          if (name === "then") return undefined;
          return (...args: never[]) => {
            calls.push(`${prefix}.${name}`);
            const answer = answers[name];
            if (!answer) throw new Error(`unexpected call ${prefix}.${name}`);
            return Promise.resolve(answer(...args));
          };
        },
      },
    );
  const ctx = {
    tenantId: "t1",
    config: {},
    principal: { kind: "token", scopes: ["operator.write"] },
    tenant: logged("tenant", tenantAnswers),
    sessions: (key: string) => {
      sessionKeys.push(key);
      return logged("session", sessionAnswers);
    },
  } as unknown as TenantContext;
  return { ctx, calls, sessionKeys };
}

/** A run tap with one delta and the end line. */
function tapOf(text: string): ReadableStream<Uint8Array> {
  const lines = `${JSON.stringify({ type: "delta", text })}\n${JSON.stringify({ type: "end", state: "final" })}\n`;
  return new Response(lines).body!;
}

async function post(
  path: string,
  body: unknown,
  limited = false,
): Promise<{ status: number; text: string; retryAfter: string | null; calls: string[]; sessionKeys: string[] }> {
  const { ctx, calls, sessionKeys } = countingContext(limited);
  const app = new Hono<AppEnv>();
  app.onError((error, c) => {
    const failure = toOpenAiError(error);
    return c.json(openAiErrorBody(failure), failure.status, failure.headers ?? {});
  });
  app.use(async (c, next) => {
    c.set("tenant", ctx);
    await next();
  });
  app.post("/v1/chat/completions", chatCompletions);
  app.post("/v1/responses", responses);
  const pending: Promise<unknown>[] = [];
  const executionCtx = { waitUntil: (promise: Promise<unknown>) => pending.push(promise), passThroughOnException() {} };
  const init = { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
  const response = await app.request(path, init, {}, executionCtx as never);
  const text = await response.text();
  await Promise.all(pending);
  return { status: response.status, text, retryAfter: response.headers.get("retry-after"), calls, sessionKeys };
}

/** The calls up to the run's start (the session's startRun); what follows waits for the run. */
function beforeStart(calls: string[]): string[] {
  return calls.slice(0, calls.indexOf("session.startRun") + 1);
}

describe("an OpenAI route reaches its run in two calls (issue 37)", () => {
  const ONE_TENANT_ONE_SESSION = ["tenant.admitCompletion", "session.startRun"];

  it("a streamed /v1/responses with previous_response_id: one tenant call, then the start in its session", async () => {
    const answer = await post("/v1/responses", {
      model: "openclaw",
      input: "again",
      stream: true,
      previous_response_id: "resp_earlier",
    });
    expect(answer.status).toBe(200);
    expect(answer.text).toContain("response.output_text.delta");
    expect(answer.text).toContain('"delta":"Hi"');
    expect(beforeStart(answer.calls)).toEqual(ONE_TENANT_ONE_SESSION);
    expect(answer.sessionKeys[0]).toBe(PREVIOUS_KEY);
  });

  it("a /v1/responses that continues no response, and a non-streamed one", async () => {
    const fresh = await post("/v1/responses", { model: "openclaw", input: "hi", stream: true });
    expect(beforeStart(fresh.calls)).toEqual(ONE_TENANT_ONE_SESSION);
    expect(fresh.sessionKeys[0]).toMatch(/^agent:main:openresponses:/);
    expect(fresh.sessionKeys[0]).not.toBe(PREVIOUS_KEY);
    const whole = await post("/v1/responses", { model: "openclaw", input: "again", previous_response_id: "resp_x" });
    expect(whole.status).toBe(200);
    expect(JSON.parse(whole.text).status).toBe("completed");
    expect(beforeStart(whole.calls)).toEqual(ONE_TENANT_ONE_SESSION);
  });

  it("/v1/chat/completions, streamed and not", async () => {
    const messages = [{ role: "user", content: "hi" }];
    const streamed = await post("/v1/chat/completions", { model: "openclaw", messages, stream: true });
    expect(streamed.text).toContain('"content":"Hi"');
    expect(beforeStart(streamed.calls)).toEqual(ONE_TENANT_ONE_SESSION);
    const whole = await post("/v1/chat/completions", { model: "openclaw", messages });
    expect(JSON.parse(whole.text).choices[0].message.content).toBe("Hi");
    expect(beforeStart(whole.calls)).toEqual(ONE_TENANT_ONE_SESSION);
  });

  it("over the completions meter: 429 with Retry-After from the one tenant call, no session call", async () => {
    for (const stream of [false, true]) {
      const answer = await post("/v1/responses", { model: "openclaw", input: "hi", stream }, true);
      expect(answer.status).toBe(429);
      expect(answer.retryAfter).toBe("3");
      expect(JSON.parse(answer.text)).toEqual({
        error: {
          message: "Too many requests: the limit is 4 completions per minute. Please try again later.",
          type: "rate_limit_error",
        },
      });
      expect(answer.calls).toEqual(["tenant.admitCompletion"]);
    }
  });
});
