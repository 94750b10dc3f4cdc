import { describe, expect, it } from "vitest";
import type { HubApi, HubBatch, HubInterest } from "../../../src/contracts/hub-api";
import type { TenantApi } from "../../../src/contracts/tenant-api";
import type { GatewayHub } from "../../../src/gateway/hub";
import { HubLink } from "../../../src/gateway/hub-link";
import { HubRelay, MAX_QUEUED_DELIVERIES } from "../../../src/gateway/hub-relay";
import { InterestReporter } from "../../../src/gateway/interest-reporter";

const interest = (extra: Partial<HubInterest>): HubInterest => ({
  sockets: 0,
  readers: 0,
  watchers: 0,
  keys: [],
  ...extra,
});
const update = (key: string, n: number) => ({
  key,
  messages: [],
  reasons: [],
  events: [{ event: "chat" as const, payload: { n }, afterSeq: 0 }],
});

function memoryStore() {
  const rows = new Map<number, HubInterest>();
  return {
    rows,
    load: () => new Map(rows),
    put: (hub: number, value: HubInterest) => (value.sockets === 0 ? rows.delete(hub) : rows.set(hub, value)),
  };
}

/** Hubs that record their batches; `fail(n)` makes hub n refuse the next `times` calls. */
function fakeHubs() {
  const batches = new Map<number, HubBatch[]>();
  const failures = new Map<number, number>();
  const told: string[] = [];
  const api = (hub: number): HubApi => ({
    fetch: async () => new Response(null),
    deliver: async (batch) => {
      const left = failures.get(hub) ?? 0;
      if (left > 0) {
        failures.set(hub, left - 1);
        throw new Error(`hub ${hub} restarting`);
      }
      batches.set(hub, [...(batches.get(hub) ?? []), batch]);
    },
    configChanged: () => void told.push(`config ${hub}`),
    closeToken: () => {
      if ((failures.get(hub) ?? 0) > 0) throw new Error(`hub ${hub} unreachable`);
      told.push(`close ${hub}`);
    },
    closeAll: () => void told.push(`closeAll ${hub}`),
    evictHandshaking: () => {
      told.push(`evict ${hub}`);
      return true;
    },
  });
  return { api, batches, told, fail: (hub: number, times: number) => failures.set(hub, times) };
}

const settle = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms));

describe("HubRelay", () => {
  it("never puts more than the bound on a hub, counting sockets sent there before its first report", () => {
    const relay = new HubRelay(memoryStore(), fakeHubs().api, 2);
    expect(relay.assign(1)).toBe(0); // the tenant object has room
    // The tenant object is full: a burst before any hub reported.
    expect([relay.assign(2), relay.assign(2), relay.assign(2), relay.assign(2), relay.assign(2)]).toEqual([
      1, 1, 2, 2, 3,
    ]);
    // Hub 1 reports one of its two: one is still on its way, so it stays full.
    relay.report(1, interest({ sockets: 1 }));
    expect(relay.assign(2)).toBe(3);
    // Its second arrived and then one left: room for one.
    relay.report(1, interest({ sockets: 2 }));
    relay.report(1, interest({ sockets: 1 }));
    expect(relay.assign(2)).toBe(1);
  });

  it("asks the hub reporting the most sockets in their handshake to evict one; none reported, none asked", async () => {
    const hubs = fakeHubs();
    const relay = new HubRelay(memoryStore(), hubs.api, 10);
    expect(await relay.evictHandshaking()).toBe(false);
    relay.report(1, interest({ sockets: 3, handshaking: { "192.0.2.1": 1 } }));
    relay.report(2, interest({ sockets: 5, handshaking: { "192.0.2.2": 2, "192.0.2.3": 2 } }));
    expect(await relay.evictHandshaking()).toBe(true);
    expect(hubs.told).toEqual(["evict 2"]);
  });

  it("tells a hub assigned sockets but not reported yet of a revocation, and says when a hub could not be told", async () => {
    const hubs = fakeHubs();
    const relay = new HubRelay(memoryStore(), hubs.api, 1);
    relay.assign(1);
    relay.assign(1);
    await relay.each(async (hub) => hub.closeToken("t"));
    expect(hubs.told).toEqual(["close 1", "close 2"]);
    hubs.fail(2, 1);
    await expect(relay.each(async (hub) => hub.closeToken("t"))).rejects.toThrow("gateway hubs 2 could not be reached");
  });

  it("sends a hub only what its connections would receive, in order, retrying a batch under the same number", async () => {
    const hubs = fakeHubs();
    const store = memoryStore();
    const relay = new HubRelay(store, hubs.api, 1);
    relay.report(1, interest({ sockets: 1, readers: 1, keys: ["agent:main:a"] }));
    relay.report(2, interest({ sockets: 1 })); // nobody there may read
    hubs.fail(1, 1);
    relay.update(update("agent:main:a", 1), () => null);
    relay.update(update("agent:main:a", 2), () => null);
    await settle(250);
    const got = hubs.batches.get(1) ?? [];
    // The first batch failed once and went again under its number; the second came after it.
    expect(got.map((b) => b.seq)).toEqual([1, 2]);
    expect(
      got.flatMap((b) => b.deliveries.map((d) => (d.kind === "update" ? d.update.events[0]!.payload.n : 0))),
    ).toEqual([1, 2]);
    expect(hubs.batches.get(2)).toBeUndefined();
    // A restarted tenant object still routes: the reports are in its store.
    expect([...store.rows.keys()]).toEqual([1, 2]);
  });

  it("keeps at most MAX_QUEUED_DELIVERIES for a hub that cannot keep up, dropping the oldest", async () => {
    let release: () => void = () => {};
    const delivered: HubBatch[] = [];
    const api = (): HubApi => ({
      ...fakeHubs().api(1),
      deliver: (batch) => {
        delivered.push(batch);
        return new Promise<void>((resolve) => {
          release = resolve;
        });
      },
    });
    const relay = new HubRelay(memoryStore(), api, 1);
    relay.report(1, interest({ sockets: 1, readers: 1 }));
    for (let n = 0; n <= MAX_QUEUED_DELIVERIES + 10; n++) relay.update(update("agent:main:a", n), () => null);
    release();
    await settle();
    const second = delivered[1]!.deliveries;
    expect(second).toHaveLength(MAX_QUEUED_DELIVERIES);
    expect(second[0]!.kind === "update" && second[0]!.update.events[0]!.payload.n).toBe(11);
  });
});

describe("HubLink", () => {
  const fakeHub = () => {
    const rendered: number[] = [];
    const hub = {
      fanout: {
        deliver: (u: { events: Array<{ payload: { n: number } }> }) => rendered.push(u.events[0]!.payload.n),
        deleted: () => {},
      },
      connections: { all: () => [][Symbol.iterator]() },
      closeToken: () => {},
    } as unknown as GatewayHub;
    return { hub, rendered };
  };
  const reporter = () =>
    new InterestReporter(
      () => interest({}),
      async () => {},
    );

  it("renders a retried batch once, and a new tenant-object instance's batches from its first", () => {
    const { hub, rendered } = fakeHub();
    const link = new HubLink({} as TenantApi, () => hub, reporter());
    const batch = (epoch: string, seq: number, n: number): HubBatch => ({
      epoch,
      seq,
      deliveries: [{ kind: "update", update: update("agent:main:a", n), row: null }],
    });
    link.deliver(batch("a", 1, 1));
    link.deliver(batch("a", 1, 1)); // the same batch again: its answer was lost
    link.deliver(batch("a", 2, 2));
    link.deliver(batch("b", 1, 3)); // the tenant object restarted
    expect(rendered).toEqual([1, 2, 3]);
  });

  it("does not keep a config read that started before a change", async () => {
    const { hub } = fakeHub();
    let version = 1;
    let link: HubLink;
    const tenant = {
      config: async () => {
        const read = { version };
        if (version === 1) {
          version = 2;
          link.configChanged(); // the change lands while the first read is on its way
        }
        return read;
      },
    } as unknown as TenantApi;
    link = new HubLink(tenant, () => hub, reporter());
    await link.loadConfig();
    expect(link.currentConfig()).toEqual({ version: 2 });
  });
});

describe("HubLink at a tick", () => {
  it("closes the connections whose token is gone (a revocation the hub was not told of)", async () => {
    const closed: string[] = [];
    const states = [{ tokenId: "kept" }, { tokenId: "revoked" }, { tokenId: "revoked" }, {}];
    const hub = {
      connections: { all: () => states.map((state) => ({ state }))[Symbol.iterator]() },
      closeToken: (tokenId: string) => closed.push(tokenId),
    } as unknown as GatewayHub;
    const tenant = { tokenExists: async (tokenId: string) => tokenId === "kept" } as unknown as TenantApi;
    await new HubLink(
      tenant,
      () => hub,
      new InterestReporter(
        () => interest({}),
        async () => {},
      ),
    ).closeRevoked();
    expect(closed).toEqual(["revoked"]);
  });
});

describe("InterestReporter under churn", () => {
  it("sends nothing for a change that leaves the summary as the tenant object has it (a refusal counted, a connect's state)", async () => {
    let sockets = 1;
    const sent: number[] = [];
    const reporter = new InterestReporter(
      () => interest({ sockets }),
      async (report) => void sent.push(report.sockets),
    );
    reporter.changed();
    await reporter.settled();
    reporter.changed();
    await reporter.settled();
    sockets = 2;
    reporter.changed();
    await reporter.settled();
    expect(sent).toEqual([1, 2]);
  });

  it("settles a caller once its own change arrived, while later changes keep coming", async () => {
    let sockets = 0;
    const arrived: number[] = [];
    const reporter = new InterestReporter(
      () => interest({ sockets }),
      async (report) => {
        await settle(5);
        arrived.push(report.sockets);
      },
    );
    sockets = 1;
    reporter.changed();
    const mine = reporter.settled().then(() => [...arrived]);
    // Churn that never stops while the caller waits.
    const churn = setInterval(() => {
      sockets += 1;
      reporter.changed();
    }, 2);
    const seen = await mine;
    clearInterval(churn);
    expect(seen[0]).toBe(1);
  });
});
