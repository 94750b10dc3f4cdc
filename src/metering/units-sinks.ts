import type { ObjectUnits } from "../contracts/ledger-api";
import type { UnitsSink } from "./object-meter";

/**
 * Whose bill an object's units go on, from its name: a session object is `<tenant>/<key>`, a
 * gateway hub `<tenant>#<n>`, the tenant's other objects are named by the tenant id. Null for an
 * object without a name the runtime carries (a session key past ~1 KB) and for the
 * deployment's directory: those units are the operator's, not a tenant's.
 */
export function tenantOfObject(name: string | undefined): string | null {
  if (!name) return null;
  const tenant = name.split(/[/#]/, 1)[0]!;
  return tenant === "" ? null : tenant;
}

/** A sink that hands units to the tenant's ledger (`recordUnits` on its stub). */
export function ledgerSink(
  ledger: (tenantId: string) => { recordUnits(date: string, objectClass: string, units: ObjectUnits): unknown },
  tenantId: string,
): UnitsSink {
  return async (date, objectClass, units) => {
    await ledger(tenantId).recordUnits(date, objectClass, units);
  };
}
