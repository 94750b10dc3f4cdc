import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { freshTenant, type TestTenant, user } from "../support/helpers";

/**
 * Generated hostile POST /tools/invoke bodies: the service answers 200 or a 4xx with the
 * error envelope (never 5xx), and the read tools never write to the session index.
 */

const jsonish = fc.oneof(
  fc.string({ maxLength: 16 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.constant(null)), {
    maxKeys: 3,
  }),
);

const extremeNumber = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(0, -0, 0.5, -1, 1e308, -1e308, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 5e-324),
  fc.constantFrom("7", "1e308", "-3", " 2 ", "Infinity", "NaN", ""),
);

const UUID = "0f8fad5b-d9cb-469f-a165-70867728950e";
const hostileKey = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom(
    "main",
    "current",
    "global",
    "unknown",
    "agent:ops:main",
    "agent:main:kid",
    "agent:",
    "agent::x",
    "agent:main",
    "agent:B@d!:x",
    "cron:",
    "hook:x",
    "node-",
    " ",
    UUID,
    UUID.toUpperCase(),
    "a".repeat(600),
    "agent:main:\u0000x",
    "agent:main:\u{1F600}",
    "x:group:y",
  ),
);

const toolName = fc.oneof(
  fc.constantFrom(
    "sessions_list",
    "sessions_history",
    "session_status",
    "agents_list",
    "sessions_send",
    "sessions_spawn",
    "exec",
  ),
  fc.string({ maxLength: 20 }),
);

const toolArgs = fc.record(
  {
    sessionKey: fc.oneof(hostileKey, jsonish),
    limit: fc.oneof(extremeNumber, jsonish),
    activeMinutes: fc.oneof(extremeNumber, jsonish),
    messageLimit: fc.oneof(extremeNumber, jsonish),
    includeTools: fc.oneof(fc.constantFrom("true", "false", "1"), jsonish),
    kinds: fc.oneof(
      fc.array(fc.constantFrom("main", "GROUP", "cron", "other", "", " x ", "hook"), { maxLength: 40 }),
      jsonish,
    ),
    model: fc.oneof(fc.constantFrom("default", "DEFAULT", "gpt-x", ""), jsonish),
    action: jsonish,
  },
  { requiredKeys: [] },
);

const invokeBody = fc.record(
  {
    tool: fc.oneof(toolName, jsonish),
    args: fc.oneof(toolArgs, jsonish),
    sessionKey: fc.oneof(hostileKey, jsonish),
    action: jsonish,
    dryRun: jsonish,
  },
  { requiredKeys: [] },
);

const ERROR_TYPES = ["invalid_request", "invalid_json", "tool_error", "not_found"];

async function seed(t: TestTenant) {
  await t.append("main", user("root"));
  await t.patch("kid", { spawnedBy: "main", label: "kid" });
  await t.append("kid", {
    role: "toolResult",
    toolCallId: "c",
    toolName: "exec",
    content: [{ type: "text", text: "tool out" }],
  });
  await t.append("agent:ops:main", user("ops"));
  await t.append("global", user("g"));
}

/** Row and sessionId counts of the tenant's session index. */
function indexCounts(t: TestTenant) {
  return runInDurableObject(env.TENANTS.getByName(t.id), (_instance, state) => ({
    sessions: state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM sessions").one().n,
    ids: state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM session_ids").one().n,
  }));
}

function expectWellFormed(res: { status: number; data: any; text: string }, label: string) {
  expect(res.status, `${label} → ${res.status} ${res.text.slice(0, 300)}`).toBeLessThan(500);
  if (res.status === 200) {
    expect(res.data.ok, label).toBe(true);
    expect(res.data.result.content, label).toEqual([{ type: "text", text: expect.any(String) }]);
    expect(res.data.result.details, label).toBeDefined();
    return;
  }
  expect([400, 404], label).toContain(res.status);
  expect(res.data, label).toEqual({ ok: false, error: { type: expect.any(String), message: expect.any(String) } });
  expect(ERROR_TYPES, label).toContain(res.data.error.type);
}

describe("hostile tool arguments", () => {
  it("answers 200 or a 4xx error envelope, never 5xx, for a few hundred generated invoke bodies", async () => {
    const t = await freshTenant("fuzz");
    await seed(t);
    await t.config({
      tools: { sessions: { visibility: "all" }, agentToAgent: { enabled: true, allow: ["main", "o*"] } },
    });
    await fc.assert(
      fc.asyncProperty(invokeBody, async (body) => {
        const res = await t.call("/tools/invoke", { method: "POST", body: JSON.stringify(body) });
        expectWellFormed(res, JSON.stringify(body).slice(0, 300));
        if (res.status === 200 && body.tool !== "session_status") {
          expect(res.data.result.content[0].text).toBe(JSON.stringify(res.data.result.details, null, 2));
        }
      }),
      { numRuns: 250 },
    );
  });

  it("stays within 4xx for a sandboxed requester with every visibility", async () => {
    const t = await freshTenant("fuzzsb");
    await seed(t);
    const visibility = fc.constantFrom("self", "tree", "agent", "all");
    await fc.assert(
      fc.asyncProperty(
        visibility,
        fc.constantFrom("sessions_list", "sessions_history", "session_status"),
        toolArgs,
        fc.oneof(fc.constant(undefined), hostileKey),
        async (vis, tool, args, sessionKey) => {
          await t.config({
            tools: { sessions: { visibility: vis } },
            agents: { defaults: { sandbox: { mode: "all" } } },
          });
          const res = await t.invoke(tool, args, sessionKey === undefined ? {} : { sessionKey });
          expectWellFormed(res, `${vis} ${tool} ${JSON.stringify(args).slice(0, 200)} as ${sessionKey}`);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("never writes to the session index from sessions_list, sessions_history, agents_list or session_status without model", async () => {
    const t = await freshTenant("readonly");
    await seed(t);
    await t.config({ tools: { sessions: { visibility: "agent" } } });
    const before = await indexCounts(t);
    const readArgs = toolArgs.map(({ model: _model, ...rest }) => rest);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("sessions_list", "sessions_history", "agents_list", "session_status"),
        readArgs,
        fc.oneof(fc.constant(undefined), hostileKey),
        async (tool, args, sessionKey) => {
          const res = await t.invoke(tool, args, sessionKey === undefined ? {} : { sessionKey });
          expect(res.status, res.text.slice(0, 300)).toBeLessThan(500);
        },
      ),
      { numRuns: 150 },
    );
    expect(await indexCounts(t)).toEqual(before);
  });
});
