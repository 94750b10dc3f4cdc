// A stand-in OpenClaw gateway for the import tests, on 127.0.0.1: the handshake, and
// `sessions.list` / `chat.history` answered the way OpenClaw 2026.9 answers them (offset
// paging from the newest message, display rules that hide some records, placeholders, two
// display messages for one record, resets in place). Only what the importer reads is served.
import { WebSocketServer } from "ws";

/**
 * `sessions`: key → { row, records }, where a record is { seq, message } or
 * { seq, hidden: true } (a silent reply chat.history leaves out) and a message may be an array
 * (several display messages of one record). `refuseArchived`: answer `archived` with
 * INVALID_REQUEST, like gateways older than the archived filter.
 */
export async function startFakeGateway({ token, sessions, refuseArchived = false }) {
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise((resolve) => server.once("listening", resolve));
  server.on("connection", (socket) => {
    const send = (frame) => socket.send(JSON.stringify(frame));
    send({ type: "event", event: "connect.challenge", payload: { nonce: crypto.randomUUID(), ts: Date.now() } });
    let authed = false;
    socket.on("message", (data) => {
      const frame = JSON.parse(String(data));
      const answer = (payload) => send({ type: "res", id: frame.id, ok: true, payload });
      const refuse = (message) =>
        send({ type: "res", id: frame.id, ok: false, error: { code: "INVALID_REQUEST", message } });
      if (frame.method === "connect") {
        if (frame.params?.auth?.token !== token) {
          refuse("unauthorized: gateway token mismatch");
          socket.close(1008, "unauthorized");
          return;
        }
        authed = true;
        answer({ type: "hello-ok", protocol: 4, server: { version: "fake" } });
        return;
      }
      if (!authed) return;
      if (frame.method === "sessions.list") {
        if (refuseArchived && "archived" in (frame.params ?? {}))
          return refuse("invalid sessions.list params: archived");
        const rows = [...sessions.values()].map((s) => s.row);
        const offset = frame.params?.offset ?? 0;
        const limit = frame.params?.limit ?? rows.length;
        const page = rows.slice(offset, offset + limit);
        const hasMore = offset + page.length < rows.length;
        return answer({
          count: page.length,
          totalCount: rows.length,
          hasMore,
          nextOffset: hasMore ? offset + page.length : null,
          sessions: page,
        });
      }
      if (frame.method === "chat.history") return answer(history(sessions.get(frame.params.sessionKey), frame.params));
      refuse(`unknown method ${frame.method}`);
    });
  });
  return {
    url: `ws://127.0.0.1:${server.address().port}`,
    close: () =>
      new Promise((resolve) => {
        for (const client of server.clients) client.terminate();
        server.close(resolve);
      }),
  };
}

/** One chat.history page: records (total - offset - limit, total - offset], display messages only. */
function history(session, { limit = 200, offset = 0 }) {
  if (!session) return { messages: [], hasMore: false, totalMessages: 0 };
  const total = session.records.length;
  const end = Math.max(0, total - offset);
  const window = session.records.filter((r) => r.seq > end - limit && r.seq <= end);
  const messages = window.flatMap((r) =>
    r.hidden ? [] : [r.message].flat().map((m) => ({ ...m, __openclaw: { ...m.__openclaw, seq: r.seq } })),
  );
  const oldest = messages[0]?.__openclaw.seq;
  const nextOffset = oldest === undefined ? offset + window.length : total - oldest + 1;
  const hasMore = nextOffset < total;
  return {
    sessionKey: session.row.key,
    sessionId: session.row.sessionId,
    messages,
    offset,
    ...(hasMore ? { nextOffset } : {}),
    hasMore,
    totalMessages: total,
  };
}
