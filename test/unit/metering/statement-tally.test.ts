import { describe, expect, it } from "vitest";
import { StatementTally, statementTallyFor } from "../../../src/metering/statement-tally";

/** A statement's cursor as the tally reads it (its counts once its rows were consumed). */
const cursor = (rowsRead: number, rowsWritten: number) =>
  ({ rowsRead, rowsWritten }) as unknown as SqlStorageCursor<Record<string, SqlStorageValue>>;

describe("rows per statement for the cost bench's --by-statement (src/metering/statement-tally.ts)", () => {
  it("is off unless the deployment asks for it", () => {
    expect(statementTallyFor({})).toBeNull();
    expect(statementTallyFor({ METER_ROWS_BY_STATEMENT: "0" })).toBeNull();
    expect(statementTallyFor({ METER_ROWS_BY_STATEMENT: "1" })).toBeInstanceOf(StatementTally);
  });

  it("sums a burst's cursors per statement text (whitespace folded) and starts afresh", () => {
    const tally = new StatementTally();
    tally.note("UPDATE t SET a = ?\n       WHERE id = ?", cursor(1, 2));
    tally.note("UPDATE t SET a = ? WHERE id = ?", cursor(1, 1));
    tally.note("SELECT * FROM t", cursor(5, 0));
    expect(tally.take()).toEqual({
      "UPDATE t SET a = ? WHERE id = ?": { calls: 2, rowsRead: 2, rowsWritten: 3 },
      "SELECT * FROM t": { calls: 1, rowsRead: 5, rowsWritten: 0 },
    });
    expect(tally.take()).toEqual({});
  });
});
