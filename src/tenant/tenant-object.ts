import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";

export class TenantObject extends DurableObject<Env> {}
