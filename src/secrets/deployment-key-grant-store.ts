import type { Schema } from "../storage/migrations";
import { all } from "../storage/sql";

/** Deployment keys the operator granted this tenant (admin API), in the tenant object's database: names only. */
export const DEPLOYMENT_KEY_GRANT_SCHEMAS: Schema[] = [
  {
    module: "deployment-key-grants",
    migrations: [
      {
        name: "create deployment_key_grants",
        sql: "CREATE TABLE deployment_key_grants (name TEXT PRIMARY KEY, granted_at INTEGER NOT NULL)",
      },
    ],
  },
];

export class DeploymentKeyGrantStore {
  constructor(private readonly sql: SqlStorage) {}

  list(): Array<{ name: string; grantedAt: number }> {
    return all<{ name: string; granted_at: number }>(
      this.sql,
      "SELECT name, granted_at FROM deployment_key_grants ORDER BY name",
    ).map((row) => ({ name: row.name, grantedAt: row.granted_at }));
  }

  /** Grants a key; false when it was granted already (its first grant time is kept). */
  grant(name: string, now: number): boolean {
    return (
      this.sql.exec(
        "INSERT INTO deployment_key_grants (name, granted_at) VALUES (?, ?) ON CONFLICT DO NOTHING",
        name,
        now,
      ).rowsWritten > 0
    );
  }

  revoke(name: string): boolean {
    return this.sql.exec("DELETE FROM deployment_key_grants WHERE name = ?", name).rowsWritten > 0;
  }
}
