import { DatabaseSync, type SQLInputValue } from "node:sqlite";

/**
 * The part of a Durable Object's storage the session object's engines use (`sql`,
 * `transactionSync`, the alarm), over an in-memory SQLite database of Node's own `node:sqlite`:
 * the stores run their real SQL, in Node, in milliseconds. `alarm` is the one alarm as set;
 * `alarmWrites` counts the writes (a burst of timers must cost one).
 */
export class MemoryStorage {
  readonly db = new DatabaseSync(":memory:");
  alarm: number | null = null;
  alarmWrites = 0;
  private depth = 0;

  readonly sql = {
    exec: (query: string, ...binds: unknown[]) => this.exec(query, binds),
  } as unknown as SqlStorage;

  /** Nested calls are savepoints, as in workerd; a throw rolls back that level only. */
  transactionSync<T>(fn: () => T): T {
    const name = `t${++this.depth}`;
    this.db.exec(`SAVEPOINT ${name}`);
    try {
      const result = fn();
      this.db.exec(`RELEASE ${name}`);
      return result;
    } catch (error) {
      this.db.exec(`ROLLBACK TO ${name}`);
      this.db.exec(`RELEASE ${name}`);
      throw error;
    } finally {
      this.depth--;
    }
  }

  async setAlarm(at: number): Promise<void> {
    this.alarm = at;
    this.alarmWrites++;
  }

  async getAlarm(): Promise<number | null> {
    return this.alarm;
  }

  async deleteAlarm(): Promise<void> {
    this.alarm = null;
  }

  /** The storage as the code under test types it. */
  get asStorage(): DurableObjectStorage {
    return this as unknown as DurableObjectStorage;
  }

  private exec(query: string, binds: unknown[]) {
    // Several statements (a migration batch) run at once, as SqlStorage.exec runs them.
    if (binds.length === 0 && /;\s*\S/.test(query)) {
      this.db.exec(query);
      return cursorOf([], 0);
    }
    const statement = this.db.prepare(query);
    const values = binds.map(toSqlValue);
    if (statement.columns().length > 0) return cursorOf(statement.all(...values) as Record<string, unknown>[], 0);
    return cursorOf([], Number(statement.run(...values).changes));
  }
}

function toSqlValue(value: unknown): SQLInputValue {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  return value as SQLInputValue;
}

function cursorOf(rows: Record<string, unknown>[], rowsWritten: number) {
  const plain = rows.map((row) => ({ ...row }));
  const iterator = plain[Symbol.iterator]();
  return {
    rowsWritten,
    rowsRead: plain.length,
    columnNames: plain[0] ? Object.keys(plain[0]) : [],
    toArray: () => plain,
    one: () => {
      if (plain.length !== 1) throw new Error(`expected one row, got ${plain.length}`);
      return plain[0];
    },
    next: () => iterator.next(),
    raw: () => plain.map((row) => Object.values(row))[Symbol.iterator](),
    [Symbol.iterator]: () => iterator,
  };
}
