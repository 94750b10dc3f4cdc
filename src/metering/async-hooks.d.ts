/**
 * The part of `node:async_hooks` the meter uses (workerd serves it under `nodejs_compat`; the
 * project does not load Node's own type definitions into worker code).
 */
declare module "node:async_hooks" {
  export class AsyncLocalStorage<T> {
    getStore(): T | undefined;
    run<R>(store: T, callback: () => R): R;
  }
}
