import { hookIngress } from "../../hooks/hook-routes";
import type { Slice } from "../../registry/slice";

/** OpenClaw's inbound webhooks at each tenant's `hooks.path` (their own token, so before tenant auth). */
export const hooksSlice: Slice = { name: "hooks", routes: { ingress: hookIngress } };
