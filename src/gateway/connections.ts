import type { HubInterest } from "../contracts/hub-api";
import { type ConnectionState, canRead, readState, writeState } from "./connection";

/** A live gateway connection: its socket, its state (mirrored in the attachment) and its event seq. */
export type Connection = {
  readonly ws: WebSocket;
  state: ConnectionState;
  /** The seq of the last event frame sent to this connection (gap-free per connection). */
  seq: number;
  /** Events held back while requests that must be answered first are in flight (see `defer`). */
  deferred?: { depth: number; heads: string[] };
};

/**
 * An event frame up to its `seq` value: rendered once per event, so a connection's frame is
 * this head, its own seq and the closing brace (one concatenation per socket, no JSON work).
 */
export function eventFrameHead(event: string, payloadJson: string): string {
  return `{"type":"event","event":${JSON.stringify(event)},"payload":${payloadJson},"seq":`;
}

/** How long event seqs may stay in memory only; then they are written to the attachments. */
const SEQ_PERSIST_DELAY_MS = 1_000;

/**
 * The tenant's gateway connections, hydrated from the Hibernation API's socket attachments
 * once per wake-up and kept in memory after that (no attachment read per frame), with the
 * subscription index: `sessions.subscribe` watchers and per-key message followers.
 *
 * Every event frame carries the connection's own `seq`, counted in memory and persisted to
 * the attachment shortly after (the pending write keeps the object awake until it is done,
 * so a hibernation wake-up continues the count without a gap).
 */
export class Connections {
  private byWs: Map<WebSocket, Connection> | null = null;
  private readonly readers = new Set<Connection>();
  private readonly watchers = new Set<Connection>();
  private readonly followers = new Map<string, Set<Connection>>();
  /** Sockets in the challenge phase, by client address. */
  private readonly handshakingByAddress = new Map<string, number>();
  private readonly unsaved = new Set<Connection>();
  private persistTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly ctx: DurableObjectState,
    /** Told after a socket comes, goes or changes its state (a hub object reports its interest). */
    private readonly changed: () => void = () => {},
  ) {}

  /** Every connection, hydrated from the attachments on first use after a wake-up. */
  all(): IterableIterator<Connection> {
    return this.hydrate().values();
  }

  get size(): number {
    return this.hydrate().size;
  }

  get(ws: WebSocket): Connection | undefined {
    return this.hydrate().get(ws);
  }

  /** A new socket (challenge phase). */
  add(ws: WebSocket, state: ConnectionState): Connection {
    writeState(ws, state);
    const connection: Connection = { ws, state, seq: state.seq ?? 0 };
    // A first hydrate here has already indexed this socket from the attachment just written.
    const hydrated = this.hydrate().get(ws);
    if (hydrated) this.unindex(hydrated);
    this.hydrate().set(ws, connection);
    this.index(connection);
    this.changed();
    return connection;
  }

  /** Changes a connection's state, in memory and in its attachment. */
  update(connection: Connection, state: ConnectionState): void {
    this.unindex(connection);
    connection.state = state;
    writeState(connection.ws, { ...state, seq: connection.seq });
    this.unsaved.delete(connection);
    this.index(connection);
    this.changed();
  }

  remove(ws: WebSocket): void {
    const connection = this.byWs?.get(ws);
    if (!connection) return;
    this.unindex(connection);
    this.unsaved.delete(connection);
    this.byWs?.delete(ws);
    this.changed();
  }

  // ── Subscriptions ───────────────────────────────────────────────────────

  /** Connections that may read and watch every session (`sessions.subscribe`). */
  sessionWatchers(): ReadonlySet<Connection> {
    this.hydrate();
    return this.watchers;
  }

  /** Connections following one key's messages (`sessions.messages.subscribe`). */
  keyFollowers(key: string): ReadonlySet<Connection> | undefined {
    this.hydrate();
    return this.followers.get(key);
  }

  /** What these connections would receive, from the subscription index (a hub's report). */
  interest(): HubInterest {
    this.hydrate();
    const keys = [...this.followers.keys()].sort();
    const handshaking = Object.fromEntries(this.handshakingByAddress);
    return { sockets: this.size, readers: this.readers.size, watchers: this.watchers.size, keys, handshaking };
  }

  /** Sockets in their handshake: all of them, and those from one client address. */
  handshaking(address: string): { all: number; address: number } {
    this.hydrate();
    let all = 0;
    for (const count of this.handshakingByAddress.values()) all += count;
    return { all, address: this.handshakingByAddress.get(address) ?? 0 };
  }

  /**
   * The socket to evict when the tenant's unauthenticated budget is full: the oldest one in its
   * handshake from the address that has the most, so a flood's own sockets go before a lone
   * client's. Undefined when no socket here is in its handshake.
   */
  evictionCandidate(): Connection | undefined {
    this.hydrate();
    let busiest: string | undefined;
    let most = 0;
    for (const [address, count] of this.handshakingByAddress) {
      if (count > most) [busiest, most] = [address, count];
    }
    if (busiest === undefined) return undefined;
    let oldest: Connection | undefined;
    for (const connection of this.all()) {
      const { state } = connection;
      if (state.phase !== "challenge" || (state.address ?? "") !== busiest) continue;
      if (!oldest || state.challengeTs < oldest.state.challengeTs) oldest = connection;
    }
    return oldest;
  }

  /** Whether anyone would receive a session's events. */
  hasSubscribers(key: string): boolean {
    this.hydrate();
    return this.watchers.size > 0 || (this.followers.get(key)?.size ?? 0) > 0;
  }

  /** Whether any connection is allowed to read (run events are broadcast to all of them). */
  hasReaders(): boolean {
    this.hydrate();
    return this.readers.size > 0;
  }

  // ── Sending ─────────────────────────────────────────────────────────────

  /** Sends one event frame built around `payloadJson` (already JSON) with the connection's next seq. */
  sendEvent(connection: Connection, event: string, payloadJson: string): void {
    this.sendFrame(connection, eventFrameHead(event, payloadJson));
  }

  /**
   * Sends an event whose frame head (`eventFrameHead`) was rendered once for all its recipients,
   * with the connection's next seq: the only per-socket work of a fan-out.
   */
  sendFrame(connection: Connection, head: string): void {
    if (connection.deferred) {
      connection.deferred.heads.push(head);
      return;
    }
    connection.seq += 1;
    safeSend(connection.ws, `${head}${connection.seq}}`);
    this.unsaved.add(connection);
    this.schedulePersist();
  }

  /**
   * Holds the connection's events (in order, numbered when sent) until as many `resume`s:
   * the answer to a request goes out before the events the request itself caused.
   */
  defer(connection: Connection): void {
    connection.deferred ??= { depth: 0, heads: [] };
    connection.deferred.depth += 1;
  }

  resume(connection: Connection): void {
    const deferred = connection.deferred;
    if (!deferred) return;
    deferred.depth -= 1;
    if (deferred.depth > 0) return;
    connection.deferred = undefined;
    for (const head of deferred.heads) this.sendFrame(connection, head);
  }

  /** Sends an event to every connection allowed to read (the readers index, no per-socket check). */
  broadcast(event: string, payloadJson: string): void {
    this.hydrate();
    const head = eventFrameHead(event, payloadJson);
    for (const connection of this.readers) this.sendFrame(connection, head);
  }

  /**
   * A run's tool event (arguments and results): as `agent` to connections that asked for tool
   * events (`caps: ["tool-events"]`, the Control UI), as `session.tool` to the session's other
   * subscribers, to nobody else — as the real gateway routes it.
   */
  toolEvent(key: string, payloadJson: string): void {
    const followers = this.keyFollowers(key);
    const watchers = this.sessionWatchers();
    const asAgent = eventFrameHead("agent", payloadJson);
    const asSessionTool = eventFrameHead("session.tool", payloadJson);
    for (const connection of this.readers) {
      if (connection.state.caps?.includes("tool-events")) this.sendFrame(connection, asAgent);
      else if (watchers.has(connection) || followers?.has(connection)) this.sendFrame(connection, asSessionTool);
    }
  }

  private schedulePersist(): void {
    if (this.persistTimer) return;
    this.persistTimer = setTimeout(() => {
      this.persistTimer = null;
      for (const connection of this.unsaved) writeState(connection.ws, { ...connection.state, seq: connection.seq });
      this.unsaved.clear();
    }, SEQ_PERSIST_DELAY_MS);
  }

  // ── Internals ───────────────────────────────────────────────────────────

  private hydrate(): Map<WebSocket, Connection> {
    if (this.byWs) return this.byWs;
    this.byWs = new Map();
    for (const ws of this.ctx.getWebSockets()) {
      const state = readState(ws);
      if (!state) continue;
      const connection: Connection = { ws, state, seq: state.seq ?? 0 };
      this.byWs.set(ws, connection);
      this.index(connection);
    }
    return this.byWs;
  }

  private index(connection: Connection): void {
    const { state } = connection;
    if (state.phase === "challenge") {
      const address = state.address ?? "";
      this.handshakingByAddress.set(address, (this.handshakingByAddress.get(address) ?? 0) + 1);
    }
    if (!canRead(state)) return;
    this.readers.add(connection);
    if (state.sessions) this.watchers.add(connection);
    for (const key of state.messageKeys ?? []) {
      const set = this.followers.get(key) ?? new Set<Connection>();
      set.add(connection);
      this.followers.set(key, set);
    }
  }

  private unindex(connection: Connection): void {
    if (connection.state.phase === "challenge") {
      const address = connection.state.address ?? "";
      const left = (this.handshakingByAddress.get(address) ?? 0) - 1;
      if (left > 0) this.handshakingByAddress.set(address, left);
      else this.handshakingByAddress.delete(address);
    }
    this.readers.delete(connection);
    this.watchers.delete(connection);
    for (const key of connection.state.messageKeys ?? []) {
      const set = this.followers.get(key);
      if (!set) continue;
      set.delete(connection);
      // Keys nobody follows any more leave the map (it must not grow with every key ever followed).
      if (set.size === 0) this.followers.delete(key);
    }
  }
}

/** A send to a closing socket must never throw out of a handler. */
export function safeSend(ws: WebSocket, frame: string): void {
  try {
    ws.send(frame);
  } catch {
    // The socket is closing; its close handler cleans up.
  }
}
