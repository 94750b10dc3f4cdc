import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ADMIN, append, call, createTenant, DEV, issueToken, user } from "../support/helpers";

type SseEvent = { event?: string; data?: any; retry?: string; comment?: string };

/**
 * Reads SSE events from a streaming response until `count` events arrived; `after` goes on
 * from an earlier read of the same stream (its events and unparsed rest are kept).
 */
async function readEvents(
  res: Response,
  count: number,
  timeoutMs = 5000,
  after?: { events: SseEvent[]; reader: ReadableStreamDefaultReader<Uint8Array>; buffer: string },
) {
  const reader = after?.reader ?? res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = after?.buffer ?? "";
  const events: SseEvent[] = after ? [...after.events] : [];
  const deadline = Date.now() + timeoutMs;
  while (events.length < count) {
    if (Date.now() > deadline) throw new Error(`timed out after ${events.length} events: ${buffer}`);
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    for (let split = buffer.indexOf("\n\n"); split >= 0; split = buffer.indexOf("\n\n")) {
      const block = buffer.slice(0, split);
      buffer = buffer.slice(split + 2);
      const event: (typeof events)[number] = {};
      for (const line of block.split("\n")) {
        if (line.startsWith("event: ")) event.event = line.slice(7);
        else if (line.startsWith("data: ")) event.data = JSON.parse(line.slice(6));
        else if (line.startsWith("retry: ")) event.retry = line.slice(7);
        else if (line.startsWith(":")) event.comment = line;
      }
      events.push(event);
    }
  }
  return { events, reader, buffer };
}

/** A stream that should have ended and still is not after this long is open (generous under load). */
const STILL_OPEN_AFTER_MS = 5_000;

function follow(path: string, token = DEV, accept = "text/event-stream") {
  return exports.default.fetch(`http://svc.test${path}`, { headers: { authorization: `Bearer ${token}`, accept } });
}

describe("SSE history follow", () => {
  it("sends retry, the history page, then one message event per append", async () => {
    await append("followed", user("already here"));
    const res = await follow("/sessions/followed/history");
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    // The follower is registered before its history is written: appends after it arrive as events.
    const opened = await readEvents(res, 2);
    await append("followed", user("new one"));
    await append("followed", { role: "assistant", content: [{ type: "text", text: "reply" }] });
    const { events, reader } = await readEvents(res, 4, 5000, opened);
    expect(events[0]!.retry).toBe("1000");
    expect(events[1]).toMatchObject({ event: "history", data: { sessionKey: "agent:main:followed", hasMore: false } });
    expect(events[1]!.data.messages.map((m: any) => m.content)).toEqual(["already here"]);
    expect(events[2]).toMatchObject({
      event: "message",
      data: { sessionKey: "agent:main:followed", messageSeq: 2, message: { content: "new one" } },
    });
    expect(events[3]!.data.message.__openclaw.seq).toBe(3);
    await reader.cancel();
  });

  it("accepts follow=1 and sends fresh history pages when a limit was given", async () => {
    await append("paged-follow", user("a"));
    const res = await follow("/sessions/paged-follow/history?follow=1&limit=1", DEV, "application/json");
    const opened = await readEvents(res, 2);
    await append("paged-follow", user("b"));
    const { events, reader } = await readEvents(res, 3, 5000, opened);
    expect(events[2]!.event).toBe("history");
    expect(events[2]!.data.messages.map((m: any) => m.content)).toEqual(["b"]);
    expect(events[2]!.data).toMatchObject({ hasMore: true, nextCursor: "2" });
    await reader.cancel();
  });

  it("answers 404 for an unknown session and 401 without a token", async () => {
    const missing = await follow("/sessions/agent:main:nope/history");
    expect(missing.status).toBe(404);
    await missing.text();
    const anonymous = await exports.default.fetch("http://svc.test/sessions/main/history", {
      headers: { accept: "text/event-stream" },
    });
    expect(anonymous.status).toBe(401);
    await anonymous.text();
  });

  it("closes the stream when the session is deleted", async () => {
    await append("short-lived", user("x"));
    const res = await follow("/sessions/short-lived/history");
    const { reader } = await readEvents(res, 2);
    await call("/v1/sessions/short-lived", { method: "DELETE" });
    const deadline = Date.now() + 3000;
    let done = false;
    while (!done && Date.now() < deadline) done = (await reader.read()).done;
    expect(done).toBe(true);
  });

  it("ends a stream as soon as its token is revoked, with no message after the revoke", async () => {
    await createTenant("ssetok");
    const issued = await issueToken("ssetok", ["operator.read", "operator.write"]);
    const writer = await issueToken("ssetok", ["operator.write"]);
    await append("watched", user("x"), { token: issued.token, prefix: "/t/ssetok" });
    const res = await follow("/t/ssetok/sessions/watched/history", issued.token);
    const { events, reader } = await readEvents(res, 2);
    expect(events[1]!.event).toBe("history");
    const revoked = await call(`/v1/admin/tenants/ssetok/tokens/${issued.tokenId}`, { method: "DELETE", token: ADMIN });
    expect(revoked.status).toBe(200);
    await append("watched", user("after the revoke"), { token: writer.token, prefix: "/t/ssetok" });
    // The revoke answers after the stream was closed: what is left to read is its end.
    const next = await Promise.race([
      reader.read(),
      new Promise<"still open">((resolve) => setTimeout(() => resolve("still open"), STILL_OPEN_AFTER_MS)),
    ]);
    expect(next).toEqual({ done: true, value: undefined });
  });

  it("ends every stream of a tenant when the tenant is deleted", async () => {
    await createTenant("ssegone");
    const issued = await issueToken("ssegone", ["operator.read", "operator.write"]);
    await append("one", user("x"), { token: issued.token, prefix: "/t/ssegone" });
    await append("two", user("y"), { token: issued.token, prefix: "/t/ssegone" });
    const readers = await Promise.all(
      ["one", "two"].map(async (key) => {
        const res = await follow(`/t/ssegone/sessions/${key}/history`, issued.token);
        return (await readEvents(res, 2)).reader;
      }),
    );
    const deleted = await call("/v1/admin/tenants/ssegone", { method: "DELETE", token: ADMIN });
    expect(deleted.status).toBeLessThan(300);
    for (const reader of readers) {
      const next = await Promise.race([
        reader.read(),
        new Promise<"still open">((resolve) => setTimeout(() => resolve("still open"), STILL_OPEN_AFTER_MS)),
      ]);
      expect(next).toEqual({ done: true, value: undefined });
    }
  });
});
