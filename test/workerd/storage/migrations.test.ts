import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../../src/auth/tokens";
import { SESSION_OBJECT_SCHEMAS } from "../../../src/session/session-database";
import type { SessionObject } from "../../../src/session/session-object";
import { migrate, type Schema } from "../../../src/storage/migrations";
import { directoryApi, sessionApi } from "../../../src/stubs";
import { TENANT_SCHEMAS } from "../../../src/tenant/tenant-store";
import { call, until } from "../support/helpers";
import sessionFixture from "./fixtures/session-schema-v17.sql?raw";
import tenantFixture from "./fixtures/tenant-schema-v16.sql?raw";

type Recorded = { module: string; name: string };

function recorded(sql: SqlStorage): Recorded[] {
  return sql.exec<Recorded>("SELECT module, name FROM _migrations ORDER BY module, name").toArray();
}

function names(schemas: readonly Schema[]): Recorded[] {
  return schemas
    .flatMap((s) => s.migrations.map((m) => ({ module: s.module, name: m.name })))
    .sort((a, b) => (a.module === b.module ? a.name.localeCompare(b.name) : a.module.localeCompare(b.module)));
}

/** Replaces an object's whole database with `fixture`, then evicts it so the next call starts it anew. */
async function loadFixture(stub: DurableObjectStub<SessionObject>, fixture: string): Promise<void> {
  await runInDurableObject(stub, async (_instance, state) => {
    await state.storage.deleteAll();
    state.storage.sql.exec(fixture);
  });
  await evictDurableObject(stub);
}

describe("per-module migrations", () => {
  it("a new session object records every module's migrations by name", async () => {
    const stub = env.SESSIONS.getByName("mig-new/agent:main:fresh");
    await stub.entry();
    await runInDurableObject(stub, (_instance, state) => {
      expect(recorded(state.storage.sql)).toEqual(names(SESSION_OBJECT_SCHEMAS));
    });
  });

  it("a new session object's schema from the baseline is the one replaying every migration makes", async () => {
    // workerd's SQLite, not only Node's (test/unit/storage/session-schema-baseline.test.ts).
    const schemaOf = (sql: SqlStorage) =>
      sql
        .exec<{ type: string; name: string; sql: string | null }>(
          "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE '\\_cf\\_%' ESCAPE '\\' ORDER BY rowid",
        )
        .toArray();
    const fresh = env.SESSIONS.getByName("mig-baseline/agent:main:fresh");
    await fresh.entry();
    const fromBaseline = await runInDurableObject(fresh, (_instance, state) => schemaOf(state.storage.sql));
    const replayed = env.SESSIONS.getByName("mig-replayed/agent:main:x");
    const replayedSchema = await runInDurableObject(replayed, async (_instance, state) => {
      await state.storage.deleteAll();
      migrate(state.storage, SESSION_OBJECT_SCHEMAS);
      return schemaOf(state.storage.sql);
    });
    expect(fromBaseline.length).toBeGreaterThan(15);
    expect(fromBaseline).toEqual(replayedSchema);
  });

  it("adding a migration to one module runs only that one: nothing re-runs or is skipped", async () => {
    const stub = env.SESSIONS.getByName("mig-synthetic/agent:main:x");
    await runInDurableObject(stub, (_instance, state) => {
      const a1 = { name: "create a", sql: "CREATE TABLE t_a (n INTEGER)" };
      const b1 = { name: "create b", sql: "CREATE TABLE t_b (n INTEGER)" };
      const b2 = { name: "seed b", sql: "INSERT INTO t_b (n) VALUES (1)" };
      migrate(state.storage, [
        { module: "a", migrations: [a1] },
        { module: "b", migrations: [b1, b2] },
      ]);
      // A new migration in the FIRST module: with a single counter over a concatenated list it
      // would shift b's positions, re-running "seed b" (a duplicate row) or "create b" (a throw).
      const a2 = { name: "seed a", sql: "INSERT INTO t_a (n) VALUES (7)" };
      migrate(state.storage, [
        { module: "a", migrations: [a1, a2] },
        { module: "b", migrations: [b1, b2] },
      ]);
      const sql = state.storage.sql;
      expect(sql.exec<{ n: number }>("SELECT n FROM t_a").toArray()).toEqual([{ n: 7 }]);
      expect(sql.exec<{ n: number }>("SELECT n FROM t_b").toArray()).toEqual([{ n: 1 }]);
      // Running again changes nothing.
      migrate(state.storage, [
        { module: "a", migrations: [a1, a2] },
        { module: "b", migrations: [b1, b2] },
      ]);
      expect(sql.exec<{ c: number }>("SELECT count(*) AS c FROM t_b").one().c).toBe(1);
    });
  });

  it("upgrades a session object on the previous release's schema with its data intact", async () => {
    const key = "agent:main:legacy";
    const stub = env.SESSIONS.getByName(`legacy/${key}`);
    await loadFixture(stub, sessionFixture);

    const entry = await stub.entry();
    expect(entry).toMatchObject({
      key,
      label: "old",
      messageCount: 2,
      sessionId: "0b6f0f3e-3f5c-4d8e-9a51-6f1b2c3d4e5f",
    });
    const page = await stub.read({ direction: "tail", limit: 10, includeTools: true, maxBytes: 1_000_000 });
    expect(page?.messages.map((m: { json: string }) => JSON.parse(m.json).content)).toEqual([
      "from the last release",
      [{ type: "text", text: "ECHO: from the last release" }],
    ]);
    expect(await stub.runSnapshot("legacy-run")).toMatchObject({ status: "ok", reply: "ECHO: from the last release" });
    await runInDurableObject(stub, (_instance, state) => {
      expect(recorded(state.storage.sql)).toEqual(names(SESSION_OBJECT_SCHEMAS));
      const legacy = state.storage.sql.exec("SELECT name FROM sqlite_master WHERE name = '_schema'").toArray();
      expect(legacy).toEqual([]);
    });

    // The upgraded object keeps working: a new append continues the transcript.
    const appended = await sessionApi(env, "legacy", key).append(
      { tenantId: "legacy", key, agentId: "main" },
      { messages: [{ role: "user", content: "after the upgrade" }] },
    );
    expect(appended).toMatchObject({ appended: [{ seq: 3 }] });
    // The delivery the last release left pending without a timer is re-armed on start and delivered.
    const delivered = await until(
      async () => (await stub.deliveries()) as Array<{ idempotencyKey: string; status: string; attempts: number }>,
      (list) => list[0]?.status === "delivered",
    );
    expect(delivered[0]).toMatchObject({ idempotencyKey: "legacy-run:announce", status: "delivered", attempts: 1 });
  });

  it("upgrades a tenant object on the previous release's schema: its tokens keep working", async () => {
    const tenantId = "legacy-tenant";
    const stub = env.TENANTS.getByName(tenantId);
    await stub.exists();
    const token = `ocs_0123456789abcdef.${"A".repeat(43)}`;
    const hash = await sha256Hex(token);
    await runInDurableObject(stub, async (_instance, state) => {
      await state.storage.deleteAll();
      state.storage.sql.exec(tenantFixture);
      state.storage.sql.exec("INSERT INTO tenant (id, tenant_id, created_at) VALUES (1, ?, 0)", tenantId);
      state.storage.sql.exec(
        "INSERT INTO tokens (token_id, hash, scopes, label, created_at) VALUES ('0123456789abcdef', ?, '[\"operator.read\"]', NULL, 0)",
        hash,
      );
    });
    await evictDurableObject(stub);
    // The previous release listed its tenants in the directory too (only listed ids reach their objects).
    await directoryApi(env).add(tenantId);

    const listed = await call(`/t/${tenantId}/v1/sessions`, { token });
    expect(listed.status).toBe(200);
    await runInDurableObject(stub, (_instance, state) => {
      expect(recorded(state.storage.sql)).toEqual(names(TENANT_SCHEMAS));
    });
  });

  it("migration lists are append-only: released names keep their module and order", () => {
    // Names of migrations that have shipped. A new migration is appended to its module's list;
    // renaming, removing or reordering one of these breaks databases that already applied it.
    const released: Record<string, string[]> = {
      session: [
        "create meta",
        "create entry",
        "create messages",
        "create transcripts",
        "create idempotency",
        "add entry.published_session_id",
        "add entry.published_seq",
      ],
      runs: ["create runs", "index runs_by_state", "add runs.deferred"],
      timers: ["create timers", "index timers_by_due"],
      delivery: ["create deliveries", "index deliveries_by_created"],
      flows: ["create flows", "index flows_by_state"],
      spawn: ["create spawns"],
    };
    for (const schema of SESSION_OBJECT_SCHEMAS) {
      const shipped = released[schema.module] ?? [];
      expect(schema.migrations.slice(0, shipped.length).map((m) => m.name)).toEqual(shipped);
    }
    const releasedTenant: Record<string, string[]> = {
      tenant: ["create tenant"],
      tokens: ["create tokens"],
      config: ["create config"],
      index: [
        "create sessions",
        "index sessions_by_updated",
        "index sessions_by_agent",
        "index sessions_by_label",
        "index sessions_by_spawner",
        "index sessions_by_parent",
        "index sessions_by_session_id",
        "create session_ids",
        "index session_ids_by_key",
        "create delivered",
      ],
      counters: ["create counters"],
      secrets: ["create secrets"],
      runs: ["create runs_index"],
    };
    for (const schema of TENANT_SCHEMAS) {
      const shipped = releasedTenant[schema.module] ?? [];
      expect(schema.migrations.slice(0, shipped.length).map((m) => m.name)).toEqual(shipped);
    }
  });
});
