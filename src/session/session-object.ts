import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";

export class SessionObject extends DurableObject<Env> {}
