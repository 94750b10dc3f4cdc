import { all } from "./sql";

/**
 * Versioned schema per module. Each module (session, runs, timers, delivery, flows, spawn,
 * tenant…) owns an ordered, append-only list of named migrations, and the database records
 * which names it has applied, so adding a migration to one module never re-runs or skips
 * another's. Durable Object SQLite has no PRAGMA user_version, hence the `_migrations` table.
 */

export type Migration = { name: string; sql: string };
export type Schema = { module: string; migrations: readonly Migration[] };

/**
 * Objects created before per-module migrations kept one counter (`_schema.version`) over a
 * concatenated list. The layout says which (module, name) each position of that list was, so
 * an old object adopts the per-module record once, with nothing re-run.
 */
export type LegacyLayout = ReadonlyArray<readonly [module: string, name: string]>;

/**
 * A new database's schema in one step: the statements SQLite holds (its `sqlite_master` text, in
 * order) once every migration in `covers` has run. Replaying a long history costs a new object
 * (every new session) more than its first turn's work: each ALTER TABLE and table rebuild makes
 * SQLite reload its whole schema. Migrations not covered still run after it, as on any object.
 */
export type Baseline = {
  covers: ReadonlyArray<readonly [module: string, name: string]>;
  statements: readonly string[];
};

const RECORD_TABLE = "_migrations";
const LEGACY_TABLE = "_schema";

export function migrate(
  storage: DurableObjectStorage,
  schemas: readonly Schema[],
  legacy?: LegacyLayout,
  baseline?: Baseline,
): void {
  const sql = storage.sql;
  const tables = new Set(
    all<{ name: string }>(
      sql,
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (?, ?)",
      RECORD_TABLE,
      LEGACY_TABLE,
    ).map((t) => t.name),
  );
  const applied = new Set<string>();
  if (tables.has(RECORD_TABLE)) {
    for (const row of all<{ module: string; name: string }>(sql, `SELECT module, name FROM ${RECORD_TABLE}`)) {
      applied.add(recordKey(row.module, row.name));
    }
  }
  const adopted = !tables.has(RECORD_TABLE) && tables.has(LEGACY_TABLE) && legacy ? adoptLegacy(sql, legacy) : [];
  for (const [module, name] of adopted) applied.add(recordKey(module, name));
  // Neither record: a new database (or one emptied by deleteAll), where every migration is pending.
  const fresh = baseline !== undefined && tables.size === 0 ? baseline : undefined;
  for (const [module, name] of fresh?.covers ?? []) applied.add(recordKey(module, name));

  const pending = schemas.flatMap((schema) =>
    schema.migrations
      .filter((m) => !applied.has(recordKey(schema.module, m.name)))
      .map((m) => ({ module: schema.module, ...m })),
  );
  if (pending.length === 0 && tables.has(RECORD_TABLE)) return;
  const now = Date.now();
  const record = [...[...adopted, ...(fresh?.covers ?? [])].map(([module, name]) => ({ module, name })), ...pending];
  storage.transactionSync(() => {
    // One exec for everything pending: a new object (every new session) pays one call.
    sql.exec(
      [
        `CREATE TABLE IF NOT EXISTS ${RECORD_TABLE} (module TEXT NOT NULL, name TEXT NOT NULL, applied_at INTEGER NOT NULL, PRIMARY KEY (module, name))`,
        ...(fresh?.statements ?? []),
        ...pending.map((m) => m.sql),
        ...(record.length > 0
          ? [
              `INSERT INTO ${RECORD_TABLE} (module, name, applied_at) VALUES ${record
                .map((m) => `(${literal(m.module)}, ${literal(m.name)}, ${now})`)
                .join(", ")}`,
            ]
          : []),
        ...(tables.has(LEGACY_TABLE) ? [`DROP TABLE ${LEGACY_TABLE}`] : []),
      ].join(";\n"),
    );
  });
}

/** The (module, name) pairs an old single-counter object had applied. */
function adoptLegacy(sql: SqlStorage, layout: LegacyLayout): Array<readonly [string, string]> {
  const version = all<{ version: number }>(sql, `SELECT version FROM ${LEGACY_TABLE} WHERE id = 1`)[0]?.version ?? 0;
  return layout.slice(0, version);
}

function recordKey(module: string, name: string): string {
  return `${module}\u0000${name}`;
}

/** Our own constant names, quoted as SQL string literals. */
function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
