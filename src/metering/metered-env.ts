import { billsNothing, type MeteredBucket, meterBucket, type R2Account, type R2Units } from "./metered-bucket";
import { UNITS_HANDOFF_MS } from "./object-meter";

/**
 * Where the ATTACHMENTS bucket is handed out. The worker's entry and every metered object's
 * constructor (metered-object.ts) give the code below them a copy of `env` that carries the
 * account their R2 calls bill (the request's tally, the object's meter); `attachmentsOf(env)` is
 * the one way to the bucket, metered. Reading `env.ATTACHMENTS` anywhere else fails the lint
 * (scripts/check-layers.mjs), and an env nobody metered answers a bucket whose every call
 * fails: a new entry point that forgets the account is found by its first test.
 */

const METERED = Symbol("metered attachments");

type AttachmentsEnv = { ATTACHMENTS?: R2Bucket | undefined };
type Metered = { bucket: R2Bucket; account: R2Account };

/** `env` whose R2 calls go to `account` (the same env when there is no bucket). */
export function withMeteredAttachments<E extends object>(env: E, account: R2Account): E {
  const bucket = (env as AttachmentsEnv).ATTACHMENTS;
  if (!bucket) return env;
  const metered: Metered = { bucket, account };
  return { ...env, [METERED]: metered };
}

/** The ATTACHMENTS bucket, every call counted to the account `env` carries (absent: no bucket bound). */
export function attachmentsOf(env: { ATTACHMENTS: R2Bucket }): MeteredBucket;
export function attachmentsOf(env: AttachmentsEnv): MeteredBucket | undefined;
export function attachmentsOf(env: AttachmentsEnv): MeteredBucket | undefined {
  const metered = (env as { [METERED]?: Metered })[METERED];
  if (metered) return meterBucket(metered.bucket, metered.account);
  return env.ATTACHMENTS ? UNMETERED : undefined;
}

/**
 * The bucket with its calls billed to nobody: the sweep of a deleted tenant's leftover files,
 * whose ledger is already cleared (domain/tenant-admin.ts). Counted, and dropped.
 */
export function operatorAttachmentsOf(env: { ATTACHMENTS: R2Bucket }): MeteredBucket {
  const metered = (env as { [METERED]?: Metered })[METERED];
  return metered ? meterBucket(metered.bucket, () => undefined) : UNMETERED;
}

const refuse = async (): Promise<never> => {
  throw new Error(
    "R2 called from an env no meter was given (src/metering/metered-env.ts): wrap the entry point with withMeteredAttachments",
  );
};
const UNMETERED: MeteredBucket = { put: refuse, get: refuse, head: refuse, list: refuse, delete: refuse };

/**
 * The R2 units of a worker request, per tenant, handed to each tenant's ledger once the response
 * is made. Calls after it (a streamed body: the export lists and reads while it writes, after
 * `app.fetch` returned) are handed off once a UNITS_HANDOFF_MS window, as an object's meter does:
 * an export of 10,000 sessions is a ledger call a second, not one per R2 call.
 */
export class RequestR2Tally {
  private readonly byTenant = new Map<string, R2Units>();
  private answered = false;
  private flushPending = false;

  constructor(
    private readonly handOff: (tenantId: string, units: R2Units) => Promise<unknown>,
    private readonly keepAlive: (work: Promise<unknown>) => void,
  ) {}

  readonly account: R2Account = (tenantId, units) => {
    if (billsNothing(units)) return;
    const sum = this.byTenant.get(tenantId) ?? { classA: 0, classB: 0, storedBytes: 0 };
    sum.classA += units.classA;
    sum.classB += units.classB;
    sum.storedBytes += units.storedBytes;
    this.byTenant.set(tenantId, sum);
    // A call after the response (a streamed body, background work) waits for the window's hand-off.
    if (this.answered) this.flushSoon();
  };

  private flushSoon(): void {
    if (this.flushPending) return;
    this.flushPending = true;
    const windowEnd = new Promise<void>((resolve) => setTimeout(resolve, UNITS_HANDOFF_MS));
    this.keepAlive(
      windowEnd.then(() => {
        this.flushPending = false;
        return this.flush();
      }),
    );
  }

  /** The response is made: what the request's calls billed goes to each tenant's ledger (one RPC per tenant). */
  answer(): void {
    this.answered = true;
    if (this.byTenant.size > 0) this.keepAlive(this.flush());
  }

  private flush(): Promise<unknown> {
    const sums = [...this.byTenant];
    this.byTenant.clear();
    return Promise.all(
      sums.map(([tenantId, units]) =>
        this.handOff(tenantId, units).catch((error: unknown) =>
          console.error(`metering: R2 units of ${tenantId} not recorded`, error),
        ),
      ),
    );
  }
}
