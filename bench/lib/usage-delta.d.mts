import type { ObjectUnits } from "../../src/contracts/ledger-api";

/** Types of usage-delta.mjs (the cost bench's arithmetic, also used by test/workerd/usage/usage-proof.test.ts). */
export type Units = ObjectUnits;
export type UnitsByClass = Record<string, Units>;
export declare const UNIT_KEYS: ReadonlyArray<keyof Units>;
export declare function unitsByClass(body: { days: { objects: UnitsByClass }[] }): UnitsByClass;
export declare function minusUnits(after: UnitsByClass, before: UnitsByClass): UnitsByClass;
export declare function unitsPerOp(
  first: UnitsByClass,
  second: UnitsByClass,
  after: UnitsByClass,
  n: number,
): UnitsByClass;
