// The cost bench's arithmetic on the usage endpoint's answers (GET /v1/admin/tenants/<id>/usage):
// units per object class summed over the answer's days, the difference of two snapshots, and a
// workload's units per operation with the cost of the snapshots' own reads taken out. Shared
// with test/workerd/usage/usage-proof.test.ts, which holds it to what the objects did, counted independently.

export const UNIT_KEYS = [
  "requests",
  "websocketMessages",
  "activeMs",
  "rowsRead",
  "rowsWritten",
  "storedBytes",
  "r2ClassA",
  "r2ClassB",
  "r2StoredBytes",
];
/** Units that are a change of what is kept (may be negative: a deletion), not a count. */
const NET_KEYS = new Set(["storedBytes", "r2StoredBytes"]);

const zero = () => Object.fromEntries(UNIT_KEYS.map((k) => [k, 0]));

/** The units per object class of one usage answer, its days summed. */
export function unitsByClass(body) {
  const objects = {};
  for (const day of body.days) {
    for (const [cls, units] of Object.entries(day.objects)) {
      objects[cls] ??= zero();
      for (const k of UNIT_KEYS) objects[cls][k] += units[k] ?? 0;
    }
  }
  return objects;
}

/** `after` − `before`, per class. */
export function minusUnits(after, before) {
  const out = {};
  for (const cls of new Set([...Object.keys(after), ...Object.keys(before)])) {
    out[cls] = Object.fromEntries(UNIT_KEYS.map((k) => [k, (after[cls]?.[k] ?? 0) - (before[cls]?.[k] ?? 0)]));
  }
  return out;
}

/**
 * The units of `n` operations, per operation and class, from three snapshots taken with no
 * other work between them: `first` and `second` before the work (their difference is what one
 * read of the usage costs), `after` after it (which includes one more read).
 */
export function unitsPerOp(first, second, after, n) {
  const readCost = minusUnits(second, first);
  const raw = minusUnits(after, second);
  const perOp = {};
  for (const [cls, units] of Object.entries(raw)) {
    // Stored bytes (SQLite, R2) may shrink (a deletion, a compaction): only the counts are floored at 0.
    perOp[cls] = Object.fromEntries(
      UNIT_KEYS.map((k) => {
        const net = units[k] - (readCost[cls]?.[k] ?? 0);
        return [k, (NET_KEYS.has(k) ? net : Math.max(0, net)) / n];
      }),
    );
  }
  return perOp;
}
