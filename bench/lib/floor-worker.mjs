// The runtime floor control of the `versus` suite: the least a gateway on this runtime can do.
// One hibernating Durable Object takes every socket (as the service's one tenant object does),
// sends connect.challenge on upgrade, answers every request `res ok` (hello-ok for `connect`),
// echoes a close; GET anything else → {"ok":true}. Served by bench/lib/direct-server.mjs --floor.
// `chat.inject` also fans out what the service sends for it, and no more: a `chat` final and a
// `session.message` with the message to every other socket, each frame rendered once and only
// the socket's own `seq` added (the fan-out rows' floor; no subscription bookkeeping).
import { DurableObject } from "cloudflare:workers";

const HELLO = { type: "hello-ok", protocol: 4, server: { version: "floor", connId: "c" }, features: {}, snapshot: {} };

export class Hub extends DurableObject {
  /** Event seq per socket (in memory: nothing here idles long enough to hibernate). */
  seqs = new Map();

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
    if (frame.method === "chat.inject") this.fanOut(ws, frame.params);
    ws.send(JSON.stringify({ type: "res", id: frame.id, ok: true, payload: frame.method === "connect" ? HELLO : {} }));
  }
  fanOut(from, { sessionKey, message }) {
    const now = Date.now();
    const assistant = { role: "assistant", content: [{ type: "text", text: message }], timestamp: now };
    const runId = `inject-${crypto.randomUUID()}`;
    const chat = JSON.stringify({ runId, sessionKey, seq: 0, state: "final", message: assistant });
    const posted = JSON.stringify({ sessionKey, messageId: runId, message: assistant });
    const heads = [
      `{"type":"event","event":"chat","payload":${chat},"seq":`,
      `{"type":"event","event":"session.message","payload":${posted},"seq":`,
    ];
    for (const head of heads) {
      for (const ws of this.ctx.getWebSockets()) {
        if (ws === from) continue;
        const seq = (this.seqs.get(ws) ?? 0) + 1;
        this.seqs.set(ws, seq);
        ws.send(`${head}${seq}}`);
      }
    }
  }

  webSocketClose(ws, code) {
    this.seqs.delete(ws);
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
