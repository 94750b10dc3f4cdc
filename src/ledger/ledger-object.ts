import { DurableObject } from "cloudflare:workers";
import type {
  DailyUnits,
  LedgerApi,
  LogTailQuery,
  ObjectUnits,
  TenantLogLine,
  UsageEvent,
  UsageQuery,
} from "../contracts/ledger-api";
import { UNITS_SCHEMA, type UnitsStore, unitsStoreOf } from "../metering/units-store";
import { migrate } from "../storage/migrations";
import { LEDGER_SCHEMAS, LedgerStore } from "./ledger-store";

/**
 * A tenant's ledger (one per tenant, named by its id): token usage rolled up per day for
 * `sessions.usage`, and the tenant's own log lines for `logs.tail`. Apart from the tenant
 * object, so neither a run's bookkeeping nor a log line adds work to the object that fans out
 * the tenant's events. Wiring and RPC methods; the rules are in LedgerStore.
 */
export class LedgerObject extends DurableObject<Env> implements LedgerApi {
  private readonly store: LedgerStore;
  private readonly units: UnitsStore;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    migrate(ctx.storage, [...LEDGER_SCHEMAS, UNITS_SCHEMA]);
    this.store = new LedgerStore(ctx.storage.sql);
    this.units = unitsStoreOf(ctx);
  }

  /** A burst's billable units of one of the tenant's objects (src/metering/). */
  recordUnits(date: string, objectClass: string, units: ObjectUnits): void {
    this.units.add(date, objectClass, units);
  }

  unitsBetween(from: string, to: string): DailyUnits[] {
    return this.units.between(from, to);
  }

  record(event: UsageEvent): void {
    this.store.record(event);
  }

  log(line: TenantLogLine): void {
    this.store.log(line, Date.now());
  }

  tokensOn(date: string): number {
    return this.store.tokensOn(date);
  }

  usage(query: UsageQuery) {
    return this.store.usage(query);
  }

  readLogs(query: LogTailQuery) {
    return this.store.tail(query);
  }

  clear(): void {
    this.store.clear();
    this.units.clear();
  }
}
