import { runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, freshTenant, issueToken, type TestTenant, user } from "../support/helpers";

const APP = "https://app.example.com";

function raw(path: string, init: RequestInit = {}) {
  return exports.default.fetch(`http://svc.test${path}`, init);
}

const preflight = (path: string, origin: string) =>
  raw(path, {
    method: "OPTIONS",
    headers: {
      origin,
      "access-control-request-method": "POST",
      "access-control-request-headers": "authorization, content-type, x-unknown",
    },
  });

describe("CORS", () => {
  it("allows no browser origin by default", async () => {
    const t = await freshTenant("cors-none");
    const res = await raw(`${t.prefix}/v1/sessions`, { headers: { origin: APP, authorization: `Bearer ${t.token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    await res.arrayBuffer();
    const pre = await preflight(`${t.prefix}/v1/sessions/main/messages`, APP);
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("answers an allowed origin's preflight and requests, and nothing for other origins", async () => {
    const t = await freshTenant("cors-allow");
    expect((await t.config({ gateway: { controlUi: { allowedOrigins: [APP] } } })).status).toBe(200);

    const pre = await preflight(`${t.prefix}/v1/sessions/main/messages`, APP);
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe(APP);
    expect(pre.headers.get("access-control-allow-methods")).toContain("POST");
    expect(pre.headers.get("access-control-allow-headers")).toBe("authorization, content-type");
    expect(pre.headers.get("access-control-max-age")).toBe("600");

    const res = await raw(`${t.prefix}/v1/sessions/main/messages`, {
      method: "POST",
      headers: { origin: APP, authorization: `Bearer ${t.token}`, "content-type": "application/json" },
      body: JSON.stringify(user("from a browser")),
    });
    expect(res.status).toBe(201);
    expect(res.headers.get("access-control-allow-origin")).toBe(APP);
    expect(res.headers.get("vary")).toContain("Origin");
    expect(res.headers.get("access-control-expose-headers")).toBe("Retry-After");
    await res.arrayBuffer();

    const denied = await raw(`${t.prefix}/v1/sessions`, {
      headers: { origin: "https://evil.example", authorization: `Bearer ${t.token}` },
    });
    expect(denied.headers.get("access-control-allow-origin")).toBeNull();
    await denied.arrayBuffer();
    const deniedPre = await preflight(`${t.prefix}/v1/sessions`, "https://evil.example");
    expect(deniedPre.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("lets an allowed origin read a 401, and * allows any origin", async () => {
    const t = await freshTenant("cors-401");
    await t.config({ gateway: { controlUi: { allowedOrigins: ["*"] } } });
    const res = await raw(`${t.prefix}/v1/sessions`, {
      headers: { origin: "https://any.example", authorization: "Bearer nope" },
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("access-control-allow-origin")).toBe("https://any.example");
    await res.arrayBuffer();
  });

  it("refuses an allowed origin that is not an origin, naming the field", async () => {
    const t = await freshTenant("cors-config");
    for (const bad of [
      "https://app.example.com/",
      "app.example.com",
      "https://app.example.com/path",
      "ftp://x.example",
    ]) {
      const res = await t.config({ gateway: { controlUi: { allowedOrigins: [bad] } } });
      expect(res.status, bad).toBe(400);
      expect(res.data.error.message).toMatch(/^gateway\.controlUi\.allowedOrigins\.0: must be an origin/);
    }
  });
});

/** Reads an SSE body until `marker` appears (bounded); returns the text read so far. */
async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, marker: string, sofar = "") {
  let text = sofar;
  const decoder = new TextDecoder();
  for (let i = 0; i < 50 && !text.includes(marker); i++) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  return text;
}

async function ticketFor(t: TestTenant, key = "main") {
  const res = await t.call(`/sessions/${encodeURIComponent(key)}/history/stream-ticket`, { method: "POST" });
  expect(res.status).toBe(201);
  return res.data as { ticket: string; url: string; expiresAt: number };
}

const follow = (url: string, headers: Record<string, string> = { accept: "text/event-stream" }) =>
  raw(url, { headers });

describe("SSE stream tickets (EventSource)", () => {
  it("opens one history follow without a header, which then receives new messages", async () => {
    const t = await freshTenant("ticket");
    await t.append("main", user("before"));
    const issued = await ticketFor(t);
    expect(issued.ticket).toMatch(/^ost_/);
    expect(issued.url).toBe(`${t.prefix}/sessions/agent%3Amain%3Amain/history?ticket=${issued.ticket}`);
    expect(issued.expiresAt).toBeGreaterThan(Date.now());

    const res = await follow(issued.url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/event-stream/);
    const reader = res.body!.getReader();
    const first = await readUntil(reader, "event: history");
    expect(first).toContain("before");
    await t.append("main", user("after"));
    expect(await readUntil(reader, '"after"', first)).toContain("event: message");
    await reader.cancel();
  });

  it("is single use", async () => {
    const t = await freshTenant("ticket-once");
    await t.append("main", user("x"));
    const { url } = await ticketFor(t);
    const first = await follow(url);
    expect(first.status).toBe(200);
    await first.body!.cancel();
    const again = await follow(url);
    expect(again.status).toBe(401);
    expect(await again.json()).toEqual({ ok: false, error: { type: "unauthorized", message: "Unauthorized" } });
  });

  it("expires after a minute", async () => {
    const t = await freshTenant("ticket-expiry");
    await t.append("main", user("x"));
    const { url } = await ticketFor(t);
    // Age the stored ticket past its minute instead of waiting for it.
    await runInDurableObject(env.TENANTS.getByName(t.id), (_instance, state) => {
      state.storage.sql.exec("UPDATE stream_tickets SET expires_at = ?", Date.now() - 1);
    });
    expect((await follow(url)).status).toBe(401);
  });

  it("opens only the SSE follow of its own session, and dies with its token", async () => {
    const t = await freshTenant("ticket-scope");
    await t.append("main", user("x"));
    await t.append("agent:main:other", user("y"));

    const forMain = await ticketFor(t);
    const elsewhere = forMain.url.replace("agent%3Amain%3Amain", "agent%3Amain%3Aother");
    expect((await follow(elsewhere)).status).toBe(401);
    expect((await follow(forMain.url)).status).toBe(401); // spent by the attempt above

    const plain = await ticketFor(t);
    expect((await follow(plain.url, { accept: "application/json" })).status).toBe(400);

    const other = await ticketFor(t);
    expect((await raw(`${t.prefix}/v1/sessions?ticket=${other.ticket}`)).status).toBe(401);

    const reader = await issueToken(t.id, ["operator.read"]);
    const readerTicket = await call(`${t.prefix}/sessions/main/history/stream-ticket`, {
      method: "POST",
      token: reader.token,
    });
    expect(readerTicket.status).toBe(201);
    await call(`/v1/admin/tenants/${t.id}/tokens/${reader.tokenId}`, { method: "DELETE", token: "test-admin-token" });
    expect((await follow(readerTicket.data.url)).status).toBe(401);
  });

  it("is refused for an unknown session and without a token", async () => {
    const t = await freshTenant("ticket-404");
    expect((await t.call("/sessions/agent:main:nobody/history/stream-ticket", { method: "POST" })).status).toBe(404);
    expect(
      (await call(`${t.prefix}/sessions/main/history/stream-ticket`, { method: "POST", token: null })).status,
    ).toBe(401);
  });
});
