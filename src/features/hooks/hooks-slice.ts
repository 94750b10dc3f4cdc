import type { Slice } from "../../registry/slice";
import { hookIngress } from "./hook-routes";

/** OpenClaw's inbound webhooks at each tenant's `hooks.path` (their own token, so before tenant auth). */
export const hooksSlice: Slice = { name: "hooks", routes: { ingress: hookIngress } };
