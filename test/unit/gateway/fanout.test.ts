import { describe, expect, it } from "vitest";
import type { ConnectionState } from "../../../src/gateway/connection";
import { Connections, eventFrameHead } from "../../../src/gateway/connections";
import { Fanout } from "../../../src/gateway/fanout";

/** A hibernatable socket as Connections uses it: frames sent, the attachment. */
class FakeSocket {
  readonly frames: Array<{ event: string; seq: number; payload: Record<string, unknown> }> = [];
  private attachment: unknown = null;
  send(frame: string): void {
    this.frames.push(JSON.parse(frame));
  }
  serializeAttachment(value: unknown): void {
    this.attachment = structuredClone(value);
  }
  deserializeAttachment(): unknown {
    return this.attachment;
  }
}

const KEY = "agent:main:fan";

function setup(count: number, state: (i: number) => Partial<ConnectionState>) {
  const ctx = { getWebSockets: () => [] } as unknown as DurableObjectState;
  const connections = new Connections(ctx);
  const sockets = Array.from({ length: count }, () => new FakeSocket());
  const conns = sockets.map((ws, i) =>
    connections.add(
      ws as unknown as WebSocket,
      {
        connId: `c${i}`,
        tenantId: "t",
        origin: "http://x",
        phase: "ready",
        nonce: "n",
        challengeTs: 0,
        scopes: ["operator.read"],
        ...state(i),
      } as ConnectionState,
    ),
  );
  return { connections, fanout: new Fanout(connections), sockets, conns };
}

function injected(text: string, seq: number) {
  const json = JSON.stringify({ role: "assistant", content: [{ type: "text", text }] });
  return {
    key: KEY,
    messages: [{ seq, id: `m${seq}`, role: "assistant" as const, createdAt: 0, json }],
    events: [{ event: "chat" as const, payload: { runId: `inject-m${seq}`, state: "final" }, afterSeq: seq - 1 }],
    reasons: [],
  };
}

describe("fan-out (each event rendered once, only the seq per socket)", () => {
  it("gives every reader the run event and every follower the message, in order, each socket's seqs gap-free", () => {
    // Sockets 0–2 follow the key, 3 watches every session, 4 only reads, 5 is still in its handshake.
    const { fanout, sockets } = setup(6, (i) =>
      i < 3 ? { messageKeys: [KEY] } : i === 3 ? { sessions: true } : i === 4 ? {} : { phase: "challenge" },
    );
    fanout.deliver(injected("one", 1), () => null);
    fanout.deliver(injected("two", 2), () => null);
    for (const ws of sockets.slice(0, 4)) {
      expect(ws.frames.map((f) => [f.event, f.seq])).toEqual([
        ["chat", 1],
        ["session.message", 2],
        ["chat", 3],
        ["session.message", 4],
      ]);
      expect(ws.frames[3]!.payload).toMatchObject({ sessionKey: KEY, messageId: "m2", messageSeq: 2 });
    }
    expect(sockets[4]!.frames.map((f) => [f.event, f.seq])).toEqual([
      ["chat", 1],
      ["chat", 2],
    ]);
    expect(sockets[5]!.frames).toEqual([]);
  });

  it("holds a deferred connection's frames and numbers them on resume, after the frames sent meanwhile to others", () => {
    const { connections, fanout, sockets, conns } = setup(2, () => ({ messageKeys: [KEY] }));
    connections.defer(conns[0]!);
    fanout.deliver(injected("one", 1), () => null);
    expect(sockets[0]!.frames).toEqual([]);
    connections.resume(conns[0]!);
    for (const ws of sockets)
      expect(ws.frames.map((f) => [f.event, f.seq])).toEqual([
        ["chat", 1],
        ["session.message", 2],
      ]);
  });

  it("a frame is its head, the connection's seq and the closing brace", () => {
    const frame = `${eventFrameHead("tick", '{"ts":5}')}7}`;
    expect(JSON.parse(frame)).toEqual({ type: "event", event: "tick", payload: { ts: 5 }, seq: 7 });
  });
});
