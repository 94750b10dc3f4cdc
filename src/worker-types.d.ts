// Tells workers-types what the main module exports and what `env` holds (used by tests).
import type { Env as WorkerEnv } from "./env";

declare global {
  namespace Cloudflare {
    interface GlobalProps {
      mainModule: typeof import("./index");
      durableNamespaces: "SessionObject" | "TenantObject" | "DirectoryObject";
    }
    interface Env extends WorkerEnv {}
  }
}
