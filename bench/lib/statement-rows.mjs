// The cost suite's `--by-statement` breakdown: the server's objects log their SQLite rows per
// statement with each burst (src/metering/statement-tally.ts, METER_ROWS_BY_STATEMENT=1); this
// sums those lines as they arrive, and a workload's rows per statement and operation are the
// difference of three marks, the cost of a usage read taken out (as bench/lib/usage-delta.mjs
// does with the meter's units).

const KEY = "rowsByStatement";

/** Sums the tally lines of `server` from now on; `mark()` copies the sums so far, `stop()` ends it. */
export function statementRows(server) {
  const totals = new Map(); // "Class\tstatement" → { calls, rowsRead, rowsWritten }
  const stop = server.onLine((line) => {
    const start = line.indexOf(`{"${KEY}"`);
    if (start < 0) return;
    let parsed;
    try {
      parsed = JSON.parse(line.slice(start))[KEY];
    } catch {
      return;
    }
    for (const [statement, rows] of Object.entries(parsed.statements)) {
      const key = `${parsed.objectClass}\t${statement}`;
      const sum = totals.get(key) ?? { calls: 0, rowsRead: 0, rowsWritten: 0 };
      sum.calls += rows.calls;
      sum.rowsRead += rows.rowsRead;
      sum.rowsWritten += rows.rowsWritten;
      totals.set(key, sum);
    }
  });
  const mark = () => new Map([...totals].map(([k, v]) => [k, { ...v }]));
  return { mark, stop };
}

/**
 * Rows per statement and operation: (after − second) − (second − first), over `n`, the
 * statements that wrote anything, most rows written first: `{ objectClass, statement, calls,
 * rowsRead, rowsWritten }`.
 */
export function statementRowsPerOp(first, second, after, n) {
  const at = (m, k, f) => m.get(k)?.[f] ?? 0;
  const out = [];
  for (const key of new Set([...after.keys()])) {
    const per = {};
    for (const f of ["calls", "rowsRead", "rowsWritten"])
      per[f] = (at(after, key, f) - at(second, key, f) - (at(second, key, f) - at(first, key, f))) / n;
    if (per.rowsWritten <= 0) continue;
    const [objectClass, statement] = key.split("\t");
    out.push({ objectClass, statement, ...per });
  }
  return out.sort((a, b) => b.rowsWritten - a.rowsWritten);
}
