import type { HubInterest } from "../contracts/hub-api";
import type { HubInterestStore } from "../gateway/hub-relay";
import type { Schema } from "../storage/migrations";
import { all } from "../storage/sql";

export const HUB_SCHEMAS: Schema[] = [
  {
    module: "gateway-hubs",
    migrations: [
      {
        name: "create gateway_hubs",
        sql: "CREATE TABLE gateway_hubs (hub INTEGER PRIMARY KEY, interest TEXT NOT NULL, updated_at INTEGER NOT NULL)",
      },
    ],
  },
];

/** What each hub object of the tenant last reported (kept, so a restarted tenant object still routes). */
export class HubStore implements HubInterestStore {
  constructor(private readonly sql: SqlStorage) {}

  load(): Map<number, HubInterest> {
    const rows = all<{ hub: number; interest: string }>(this.sql, "SELECT hub, interest FROM gateway_hubs");
    return new Map(rows.map((row) => [row.hub, JSON.parse(row.interest) as HubInterest]));
  }

  put(hub: number, interest: HubInterest, at: number): void {
    if (interest.sockets === 0) {
      this.sql.exec("DELETE FROM gateway_hubs WHERE hub = ?", hub);
      return;
    }
    this.sql.exec(
      "INSERT INTO gateway_hubs (hub, interest, updated_at) VALUES (?, ?, ?) ON CONFLICT (hub) DO UPDATE SET interest = excluded.interest, updated_at = excluded.updated_at",
      hub,
      JSON.stringify(interest),
      at,
    );
  }
}
