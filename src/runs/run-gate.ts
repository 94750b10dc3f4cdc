import { RpcTarget } from "cloudflare:workers";

/**
 * The start of a run admitted with `hold`, handed to the caller with the answer. The caller
 * lets it go by disposing its stub once its own answer is on the wire; that release travels
 * back on the same call, so `chat.send` costs one call to the session object. If the caller
 * never disposes it, the runtime does when the call's context ends (or the caller is gone),
 * and the run's durable fallback timer covers a session object that restarts meanwhile.
 */
export class RunGate extends RpcTarget {
  private open: (() => void) | null;

  constructor(open: () => void) {
    super();
    this.open = open;
  }

  [Symbol.dispose](): void {
    const open = this.open;
    this.open = null;
    open?.();
  }
}
