import { describe, expect, it } from "vitest";
import { ADMIN, call, createTenant, issueToken, until } from "../support/helpers";

// The tenant's transcript byte limits (docs/operations.md "Tenant limits") on the write paths
// besides appends and run starts: imports, sessions_send targets and sessions_spawn children.

type T = { id: string; token: string; prefix: string };

const SESSION_LIMIT_BYTES = 4_000;
const TOOLS = { gateway: { tools: { allow: ["sessions_send", "sessions_spawn"] } } };

async function tenant(label: string, config: Record<string, unknown> = {}): Promise<T> {
  const id = `${label}-${crypto.randomUUID().slice(0, 8)}`;
  await createTenant(id);
  const { token } = await issueToken(id);
  const put = await call(`/t/${id}/v1/config`, {
    method: "PUT",
    token,
    json: { ...TOOLS, tools: { sessions: { visibility: "agent" } }, ...config },
  });
  expect(put.status, put.text).toBe(200);
  return { id, token, prefix: `/t/${id}` };
}

/** A tenant whose sessions may hold SESSION_LIMIT_BYTES each (its own config lowers the default). */
const perSessionLimited = (label: string) =>
  tenant(label, { limits: { transcriptBytesPerSession: SESSION_LIMIT_BYTES } });

/** A tenant whose sessions already hold its transcriptBytesPerTenant (set by the operator). */
async function fullTenant(label: string): Promise<T> {
  const t = await tenant(label);
  const override = await call(`/v1/admin/tenants/${t.id}/limits`, {
    method: "PUT",
    token: ADMIN,
    json: { transcriptBytesPerTenant: 4_000 },
  });
  expect(override.status).toBe(200);
  for (const key of ["fill-1", "fill-2"]) expect((await append(t, key, "x".repeat(2_500))).status).toBe(201);
  await until(
    async () => (await call(`${t.prefix}/v1/limits`, { token: t.token })).data.limits.transcriptBytesPerTenant,
    (use) => use.used >= 4_000,
  );
  return t;
}

const append = (t: T, key: string, content: string) =>
  call(`${t.prefix}/v1/sessions/${encodeURIComponent(key)}/messages`, {
    method: "POST",
    token: t.token,
    json: { role: "user", content },
  });

const historyLength = async (t: T, key: string) => {
  const res = await call(`${t.prefix}/sessions/${encodeURIComponent(key)}/history`, { token: t.token });
  return res.status === 404 ? 0 : res.data.messages.length;
};

const invoke = (t: T, tool: string, args: Record<string, unknown>) =>
  call(`${t.prefix}/tools/invoke`, { method: "POST", token: t.token, json: { tool, args, sessionKey: "main" } });

const SOURCE_ID = "6a0e8c1d-2b3f-4a5c-9d7e-0f1a2b3c4d5e";
const sourceMessage = (seq: number, content: string) => ({
  role: "user",
  content,
  timestamp: 1_700_000_000_000 + seq * 1000,
  __openclaw: { id: `src-${seq}`, seq },
});
const importPage = (t: T, key: string, messages: unknown[], sessionId = SOURCE_ID) =>
  call(`${t.prefix}/v1/sessions/${encodeURIComponent(key)}/import`, {
    method: "POST",
    token: t.token,
    json: { sessionId, messages },
  });

const SESSION_FULL =
  /^the session holds \d+ bytes of messages; \d+ more would pass the limit of 4000 bytes per session/;
const TENANT_FULL = /^Transcript storage full: the tenant's sessions hold \d+ bytes .* limit is 4000/;

function expectTenantFull(res: Awaited<ReturnType<typeof call>>) {
  expect(res.status, res.text).toBe(429);
  expect(res.headers.get("retry-after")).toBe("60");
  expect(res.data.error).toEqual({ type: "rate_limited", message: expect.stringMatching(TENANT_FULL) });
}

describe("transcript bytes: imports", () => {
  it("an import page past transcriptBytesPerSession is refused (413) and writes nothing; a page sent again adds nothing", async () => {
    const t = await perSessionLimited("bytes-import");
    const first = [sourceMessage(1, "a".repeat(1_500)), sourceMessage(2, "b".repeat(1_500))];
    expect((await importPage(t, "imported", first)).status).toBe(201);
    const again = await importPage(t, "imported", first);
    expect(again.status, again.text).toBe(200);
    expect(again.data).toMatchObject({ imported: 0, skipped: 2 });
    const refused = await importPage(t, "imported", [sourceMessage(3, "c".repeat(1_500))]);
    expect(refused.status, refused.text).toBe(413);
    expect(refused.data.error).toEqual({ type: "payload_too_large", message: expect.stringMatching(SESSION_FULL) });
    expect(await historyLength(t, "imported")).toBe(2);
  });

  it("an import into a tenant whose sessions are full is refused with 429 and Retry-After", async () => {
    const t = await fullTenant("bytes-import-full");
    expectTenantFull(await importPage(t, "imported", [sourceMessage(1, "a")]));
    expect(await historyLength(t, "imported")).toBe(0);
  });
});

describe("transcript bytes: sessions_send targets", () => {
  it("a send that would take its target past transcriptBytesPerSession is refused and the target is unchanged", async () => {
    const t = await perSessionLimited("bytes-send");
    for (let i = 0; i < 2; i++) expect((await append(t, "target", "x".repeat(1_500))).status).toBe(201);
    const sent = await invoke(t, "sessions_send", {
      sessionKey: "target",
      message: "y".repeat(1_500),
      timeoutSeconds: 0,
    });
    expect(sent.status, sent.text).toBe(200);
    expect(sent.data.result.details).toMatchObject({ status: "error", error: expect.stringMatching(SESSION_FULL) });
    expect(await historyLength(t, "target")).toBe(2);
  });

  it("a send into a tenant whose sessions are full is refused with 429 and Retry-After", async () => {
    const t = await tenant("bytes-send-full");
    // Made before the tenant fills (a patch asks no limits): its first write is the send.
    expect((await call(`${t.prefix}/v1/sessions/target`, { method: "PATCH", token: t.token, json: {} })).status).toBe(
      200,
    );
    const override = await call(`/v1/admin/tenants/${t.id}/limits`, {
      method: "PUT",
      token: ADMIN,
      json: { transcriptBytesPerTenant: 4_000 },
    });
    expect(override.status).toBe(200);
    for (const key of ["fill-1", "fill-2"]) expect((await append(t, key, "x".repeat(2_500))).status).toBe(201);
    await until(
      async () => (await call(`${t.prefix}/v1/limits`, { token: t.token })).data.limits.transcriptBytesPerTenant,
      (use) => use.used >= 4_000,
    );
    expectTenantFull(await invoke(t, "sessions_send", { sessionKey: "target", message: "y", timeoutSeconds: 0 }));
    expect(await historyLength(t, "target")).toBe(0);
  });
});

describe("transcript bytes: sessions_spawn children", () => {
  const children = async (t: T) =>
    ((await call(`${t.prefix}/v1/sessions`, { token: t.token })).data.sessions as { key: string }[]).filter((s) =>
      s.key.includes(":subagent:"),
    );

  it("a child whose task passes transcriptBytesPerSession is refused (413) and no child is made", async () => {
    const t = await perSessionLimited("bytes-spawn");
    const refused = await invoke(t, "sessions_spawn", { task: "t".repeat(5_000) });
    expect(refused.status, refused.text).toBe(413);
    expect(refused.data.error).toEqual({ type: "payload_too_large", message: expect.stringMatching(SESSION_FULL) });
    expect(await children(t)).toEqual([]);
  });

  it("a child in a tenant whose sessions are full is refused with 429 and Retry-After", async () => {
    const t = await fullTenant("bytes-spawn-full");
    expectTenantFull(await invoke(t, "sessions_spawn", { task: "a child" }));
    expect(await children(t)).toEqual([]);
  });
});
