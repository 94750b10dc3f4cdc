// Tells workers-types what the main module exports and which bindings the test `env` has.
declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import("./index");
    durableNamespaces: "SessionObject" | "TenantObject";
  }
  interface Env extends import("./env").Env {}
}
