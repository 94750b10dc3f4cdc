import type { LiveEvent, SessionUpdate } from "../contracts/tenant-api";
import { presentRow } from "../domain/session-index";
import type { SessionRow } from "../model/session-row";
import { type Connections, eventFrameHead } from "./connections";

/**
 * Renders a session's update into OpenClaw's gateway events and sends them to the connections
 * that follow it: `session.message` to session watchers and the key's followers,
 * `sessions.changed` to session watchers, `chat`/`agent` run events to every connection allowed to read. Each payload is
 * rendered once per event; only the per-connection seq differs.
 */
export class Fanout {
  /** Run events held back until the run's request was answered (runId → events in order). */
  private readonly held = new Map<string, Array<{ event: string; payloadJson: string }>>();

  constructor(private readonly connections: Connections) {}

  /**
   * Delivers an update whose messages were not fanned out before. Live events are interleaved
   * with messages by transcript position. `row` is read only when someone receives it.
   */
  deliver(update: Pick<SessionUpdate, "key" | "messages" | "events" | "reasons">, row: () => SessionRow | null): void {
    const { key } = update;
    let rowJson: string | undefined;
    // The row twice, as the real gateway sends it: flattened at the top level and as `session`
    // (the same object a `sessions.list` row is), serialized once per update.
    const rowFields = () => {
      if (rowJson === undefined) {
        const current = row();
        const presented = current ? JSON.stringify(presentRow(current, true)) : "";
        rowJson = presented ? `${presented.slice(1, -1)},"session":${presented}` : "";
      }
      return rowJson;
    };
    const ts = Date.now();
    const events = [...update.events];
    const flushEvents = (upToSeq: number) => {
      while (events.length > 0 && events[0]!.afterSeq <= upToSeq) this.liveEvent(key, events.shift()!, rowFields);
    };
    for (const message of update.messages) {
      flushEvents(message.seq - 1);
      if (!this.connections.hasSubscribers(key)) continue;
      // The real gateway pushes no session.message for a tool result (its seq is skipped);
      // clients see the result in the tool events and in chat.history.
      if (message.role === "toolResult") continue;
      // A run's reply names its run, as the real gateway's session.message does.
      const runId = message.runId ? `,"runId":${JSON.stringify(message.runId)}` : "";
      const head = `"sessionKey":${JSON.stringify(key)},"messageId":${JSON.stringify(message.id)},"messageSeq":${message.seq}${runId}`;
      // Every sessions.subscribe connection hears every visible session's messages, besides
      // the key's own followers (the real gateway's recipients, deduplicated).
      this.toWatchersAndFollowers(key, "session.message", `{${head},"message":${message.json}${withRow(rowFields())}}`);
    }
    flushEvents(Number.MAX_SAFE_INTEGER);
    if (!this.connections.hasSubscribers(key)) return;
    for (const reason of update.reasons) {
      this.toWatchers(
        "sessions.changed",
        `{"sessionKey":${JSON.stringify(key)},"ts":${ts},"reason":"${reason}"${withRow(rowFields())}}`,
      );
    }
  }

  /**
   * A session was deleted: watchers hear it as the real gateway tells it, twice — the session's
   * own event (no row, it is gone), then the keyless one that makes lists refetch.
   */
  deleted(session: { key: string; sessionId?: string; agentId?: string }, at: number): void {
    const own = {
      sessionKey: session.key,
      sessionId: session.sessionId,
      agentId: session.agentId,
      reason: "delete",
      ts: at,
    };
    this.toWatchers("sessions.changed", JSON.stringify(own));
    this.toWatchers("sessions.changed", JSON.stringify({ reason: "delete", ts: at }));
  }

  /** Events of `runId` wait until `release` (so a request's answer precedes its run's events). */
  hold(runId: string): void {
    if (!this.held.has(runId)) this.held.set(runId, []);
  }

  release(runId: string): void {
    const events = this.held.get(runId);
    this.held.delete(runId);
    for (const { event, payloadJson } of events ?? []) this.send(event, payloadJson);
  }

  private send(route: string, payloadJson: string): void {
    if (route.startsWith("tool:")) this.connections.toolEvent(route.slice(5), payloadJson);
    else this.connections.broadcast(route, payloadJson);
  }

  private liveEvent(key: string, event: LiveEvent, rowFields: () => string): void {
    if (event.event === "sessions.changed") {
      if (!this.connections.hasSubscribers(key)) return;
      const fields = JSON.stringify({ sessionKey: key, ts: Date.now(), ...event.payload }).slice(1, -1);
      this.toWatchers("sessions.changed", `{${fields}${withRow(rowFields())}}`);
      return;
    }
    const payloadJson = JSON.stringify({ ...event.payload, sessionKey: key });
    const runId = typeof event.payload.runId === "string" ? event.payload.runId : undefined;
    const held = runId ? this.held.get(runId) : undefined;
    // Tool arguments and results go only to who asked for them (see Connections.toolEvent).
    const route = event.event === "agent" && event.payload.stream === "tool" ? `tool:${key}` : event.event;
    if (held) held.push({ event: route, payloadJson });
    else this.send(route, payloadJson);
  }

  private toWatchersAndFollowers(key: string, event: string, payloadJson: string): void {
    const head = eventFrameHead(event, payloadJson);
    const watchers = this.connections.sessionWatchers();
    for (const connection of watchers) this.connections.sendFrame(connection, head);
    for (const connection of this.connections.keyFollowers(key) ?? []) {
      if (!watchers.has(connection)) this.connections.sendFrame(connection, head);
    }
  }

  private toWatchers(event: string, payloadJson: string): void {
    const head = eventFrameHead(event, payloadJson);
    for (const connection of this.connections.sessionWatchers()) this.connections.sendFrame(connection, head);
  }
}

function withRow(rowFields: string): string {
  return rowFields ? `,${rowFields}` : "";
}
