import { DurableObject } from "cloudflare:workers";
import { AsyncLocalStorage } from "node:async_hooks";
import { billsNothing, type R2Account } from "./metered-bucket";
import { withMeteredAttachments } from "./metered-env";
import { type EventKind, ObjectMeter, type UnitsSink } from "./object-meter";
import { statementTallyFor } from "./statement-tally";
import { tenantOfObject } from "./units-sinks";

/**
 * A Durable Object class whose instances count what they bill (object-meter.ts), without a
 * line in the class: every method on its prototype chain (the RPC surface, `fetch`, `alarm`,
 * the WebSocket handlers) is wrapped where the worker exports the class (src/index.ts), and
 * the storage's `sql.exec` is counted from the constructor on, and the R2 calls through the env
 * it is given (metered-env.ts). A method the object calls on
 * itself while an event runs is not another request (the runtime bills the call that came in):
 * an async context tells the two apart.
 */

// biome-ignore lint/suspicious/noExplicitAny: a mixin base takes the runtime's constructor arguments as they are
type ObjectClass = abstract new (...args: any[]) => object;

/** Where an instance's units go: null for an object that is nobody's bill (the deployment's directory). */
export type SinkFor = (ctx: DurableObjectState, env: Env) => UnitsSink | null;

const insideEvent = new AsyncLocalStorage<true>();
const meters = new WeakMap<DurableObjectState, ObjectMeter>();

/** Billed 20:1 as requests, so counted apart. */
const WEBSOCKET_EVENTS = new Set(["webSocketMessage", "webSocketClose", "webSocketError"]);

export function meteredObject<C extends ObjectClass>(Base: C, objectClass: string, sinkFor: SinkFor): C {
  abstract class Metered extends Base {
    // biome-ignore lint/suspicious/noExplicitAny: forwards the runtime's constructor arguments as they are
    constructor(...args: any[]) {
      const [ctx, env] = args as [DurableObjectState, Env];
      const sink = sinkFor(ctx, env);
      let meter: ObjectMeter | null = null;
      if (sink) {
        meter = new ObjectMeter(
          objectClass,
          sink,
          (work) => ctx.waitUntil(work),
          Date.now,
          statementTallyFor(env as Env & { METER_ROWS_BY_STATEMENT?: string }),
        );
        meter.countRows(ctx.storage.sql);
        meters.set(ctx, meter);
      }
      // The object's R2 calls are counted by its meter too (an object nobody bills: by no one).
      super(ctx, withMeteredAttachments(env, objectR2Account(meter, tenantOfObject(ctx.id.name))));
    }
  }
  for (const name of methodNames(Base)) {
    // Looked up at each call, so a method replaced on the class later (a test's spy) is the one run.
    const original = () => (Base.prototype as Record<string, (...args: unknown[]) => unknown>)[name]!;
    const kind: EventKind = WEBSOCKET_EVENTS.has(name) ? "websocket" : "request";
    Object.defineProperty(Metered.prototype, name, {
      configurable: true,
      writable: true,
      value: function metered(this: { ctx: DurableObjectState }, ...args: unknown[]) {
        const meter = meters.get(this.ctx);
        if (!meter || insideEvent.getStore()) return original().apply(this, args);
        meter.begin(kind);
        return insideEvent.run(true, () => {
          try {
            const result = original().apply(this, args);
            if (result instanceof Promise) return result.finally(() => meter.end());
            meter.end();
            return result;
          } catch (error) {
            meter.end();
            throw error;
          }
        });
      },
    });
  }
  Object.defineProperty(Metered, "name", { value: Base.name });
  return Metered as unknown as C;
}

/**
 * An object's R2 calls go on its own bill: a key under another tenant's prefix is refused (a
 * tenant's object never touches another's files), so attribution by key and by object agree.
 * An object whose name the runtime does not carry (a session key past ~1 KB) is fenced to the
 * tenant of its first R2 call: every path of an object works under one tenant's prefix.
 */
function objectR2Account(meter: ObjectMeter | null, tenantId: string | null): R2Account {
  let fencedTo = tenantId;
  return (keyTenant, units) => {
    fencedTo ??= keyTenant;
    if (keyTenant !== fencedTo)
      throw new Error(`R2 key of tenant ${keyTenant} used by an object of tenant ${fencedTo}`);
    if (!billsNothing(units)) meter?.countR2(units);
  };
}

/** The methods a class and its bases declare (up to the runtime's DurableObject), but its constructor. */
function methodNames(Base: ObjectClass): string[] {
  const names = new Set<string>();
  for (let proto = Base.prototype; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    if (proto === DurableObject.prototype) break;
    for (const name of Object.getOwnPropertyNames(proto)) {
      const descriptor = Object.getOwnPropertyDescriptor(proto, name);
      if (name !== "constructor" && typeof descriptor?.value === "function") names.add(name);
    }
  }
  return [...names];
}
