// The runtime floor control of the `versus` suite: the least a gateway on this runtime can do.
// One hibernating Durable Object takes every socket (as the service's one tenant object does),
// sends connect.challenge on upgrade, answers every request `res ok` (hello-ok for `connect`),
// echoes a close; GET anything else → {"ok":true}. Served by bench/lib/direct-server.mjs --floor.
import { DurableObject } from "cloudflare:workers";

const HELLO = { type: "hello-ok", protocol: 4, server: { version: "floor", connId: "c" }, features: {}, snapshot: {} };

export class Hub extends DurableObject {
  fetch() {
    const [client, server] = Object.values(new WebSocketPair());
    this.ctx.acceptWebSocket(server);
    const challenge = {
      type: "event",
      event: "connect.challenge",
      payload: { nonce: crypto.randomUUID(), ts: Date.now() },
    };
    server.send(JSON.stringify(challenge));
    return new Response(null, { status: 101, webSocket: client });
  }
  webSocketMessage(ws, message) {
    const frame = JSON.parse(message);
    ws.send(JSON.stringify({ type: "res", id: frame.id, ok: true, payload: frame.method === "connect" ? HELLO : {} }));
  }
  webSocketClose(ws, code) {
    try {
      ws.close(code === 1005 ? 1000 : code, "");
    } catch {
      // already closed
    }
  }
}

export default {
  fetch(request, env) {
    if (request.headers.get("upgrade") === "websocket") return env.HUB.get(env.HUB.idFromName("floor")).fetch(request);
    return Response.json({ ok: true, status: "live", floor: true });
  },
};
