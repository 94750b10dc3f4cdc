// The hub split of the `hubsplit` suite, in miniature (README "The tenant's ceiling", next step 2).
// ROLE=hub: one hibernating object `Hub` takes this process's gateway sockets (connect.challenge,
// `connect` → hello-ok, `sessions.messages.subscribe` {key} → subscribed); the first subscriber of
// a key registers this hub with the tenant (TENANT_URL), the last one to leave unregisters it.
// `POST /publish?key=` with an event payload (JSON) renders the frame once and sends it to every
// subscriber of the key, adding only the socket's `seq` (as src/gateway/fanout.ts does).
// ROLE=tenant: one object `Tenant` keeps which hubs have subscribers for which key; its
// `POST /publish?key=` forwards the payload to those hubs in parallel (one request per hub, the
// tenant object → hub hop of the split) and answers once every hub has sent it.
// Served by bench/lib/direct-server.mjs --worker hub-worker.mjs: one workerd per hub, one for the tenant.
import { DurableObject } from "cloudflare:workers";

const HELLO = { type: "hello-ok", protocol: 4, server: { version: "hub", connId: "c" }, features: {}, snapshot: {} };
const post = (url) => fetch(url, { method: "POST" }).then((r) => r.arrayBuffer());
// Miniflare gzips JSON answers as Cloudflare's edge would (for clients that accept it); the hops
// this models (session → tenant → hub objects) stay inside Cloudflare, uncompressed.
const ack = (body) => new Response(JSON.stringify(body), { headers: { "content-type": "application/octet-stream" } });

export class Hub extends DurableObject {
  /**
   * key → Map(socket → seq); rebuilt from the sockets' attachments when the object wakes up, with
   * seqs from 0 (the service saves them to the attachments at most once a second; no measurement
   * here idles long enough for the object to hibernate, and the client would see the gap).
   */
  subs = new Map();

  constructor(ctx, env) {
    super(ctx, env);
    for (const ws of ctx.getWebSockets()) {
      const key = ws.deserializeAttachment()?.key;
      if (key) this.followers(key).set(ws, 0);
    }
  }

  followers(key) {
    if (!this.subs.has(key)) this.subs.set(key, new Map());
    return this.subs.get(key);
  }

  async fetch(request) {
    const key = new URL(request.url).searchParams.get("key");
    if (request.method === "POST") {
      const head = `{"type":"event","event":"session.message","payload":${await request.text()},"seq":`;
      const followers = this.subs.get(key) ?? new Map();
      for (const [ws, seq] of followers) {
        followers.set(ws, seq + 1);
        try {
          ws.send(`${head}${seq + 1}}`);
        } catch {
          // closing: webSocketClose removes it
        }
      }
      return ack({ sent: followers.size });
    }
    const [client, server] = Object.values(new WebSocketPair());
    this.ctx.acceptWebSocket(server);
    server.send(JSON.stringify({ type: "event", event: "connect.challenge", payload: { nonce: "n", ts: Date.now() } }));
    return new Response(null, { status: 101, webSocket: client });
  }

  async webSocketMessage(ws, message) {
    const { id, method, params } = JSON.parse(message);
    if (method === "sessions.messages.subscribe" && !ws.deserializeAttachment()?.key) {
      ws.serializeAttachment({ key: params.key });
      const first = !this.subs.has(params.key);
      this.followers(params.key).set(ws, 0);
      if (first)
        await post(`${this.env.TENANT_URL}/register?key=${encodeURIComponent(params.key)}&hub=${this.env.SELF_URL}`);
    }
    ws.send(JSON.stringify({ type: "res", id, ok: true, payload: method === "connect" ? HELLO : {} }));
  }

  async webSocketClose(ws, code) {
    try {
      ws.close(code === 1005 ? 1000 : code, "");
    } catch {
      // already closed
    }
    const key = ws.deserializeAttachment()?.key;
    const followers = this.subs.get(key);
    if (!followers?.delete(ws) || followers.size > 0) return;
    this.subs.delete(key);
    await post(`${this.env.TENANT_URL}/unregister?key=${encodeURIComponent(key)}&hub=${this.env.SELF_URL}`);
  }
}

export class Tenant extends DurableObject {
  /** key → Set(hub base URL): the hubs with at least one subscriber of the key (kept in SQLite too). */
  hubs = new Map();

  constructor(ctx, env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec("CREATE TABLE IF NOT EXISTS hubs (key TEXT, hub TEXT, PRIMARY KEY (key, hub))");
    for (const { key, hub } of this.sql.exec("SELECT key, hub FROM hubs")) this.register(key, hub);
  }

  register(key, hub) {
    this.hubs.set(key, (this.hubs.get(key) ?? new Set()).add(hub));
  }

  async fetch(request) {
    const url = new URL(request.url);
    const key = url.searchParams.get("key");
    const hub = url.searchParams.get("hub");
    if (url.pathname === "/register") {
      this.sql.exec("INSERT OR IGNORE INTO hubs (key, hub) VALUES (?, ?)", key, hub);
      this.register(key, hub);
    } else if (url.pathname === "/unregister") {
      this.sql.exec("DELETE FROM hubs WHERE key = ? AND hub = ?", key, hub);
      if (this.hubs.get(key)?.delete(hub) && this.hubs.get(key).size === 0) this.hubs.delete(key);
    }
    if (url.pathname !== "/publish") return ack({ ok: true });
    const body = await request.text();
    const answers = await Promise.all(
      [...(this.hubs.get(key) ?? [])].map(async (base) => {
        const res = await fetch(`${base}/publish?key=${encodeURIComponent(key)}`, { method: "POST", body });
        if (res.status !== 200) throw new Error(`hub ${base}: HTTP ${res.status}`);
        return (await res.json()).sent;
      }),
    );
    return ack({ hubs: answers.length, sent: answers.reduce((a, b) => a + b, 0) });
  }
}

export default {
  fetch(request, env) {
    if (new URL(request.url).pathname === "/health") return Response.json({ ok: true, role: env.ROLE });
    const namespace = env.ROLE === "tenant" ? env.TENANT : env.HUB;
    return namespace.get(namespace.idFromName(env.ROLE)).fetch(request);
  },
};
