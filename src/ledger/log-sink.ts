import { setTenantLogSink } from "../observability/log";
import { ledgerApi } from "../stubs";

/**
 * Sends each tenant's own log lines to its ledger (for `logs.tail`), from whichever object or
 * worker request logs them. Installed wherever the bindings are (the module-level sink is the
 * same for every object of an isolate: they share one `env`). A lost copy costs one line.
 */
export function installLedgerLogSink(env: { LEDGER: DurableObjectNamespace }): void {
  setTenantLogSink((tenantId, line) => Promise.resolve(ledgerApi(env, tenantId).log(line)).catch(() => undefined));
}
