// A minimal OpenClaw gateway client for end-to-end tests (Node's WebSocket): the challenge,
// `connect` with a token, then `call(method, params)` answering `{ ok, payload, error }`;
// `events` collects the event frames that arrive.

/** A `connect` request frame as OpenClaw clients send it (protocol 3–4, operator role, a token). */
export function connectFrame(token, client = { id: "cli", version: "1.0.0", platform: "linux", mode: "cli" }) {
  const params = { minProtocol: 3, maxProtocol: 4, client, role: "operator", auth: { token } };
  return JSON.stringify({ type: "req", id: "c1", method: "connect", params });
}

export async function connectGateway(wsUrl, token) {
  const ws = new WebSocket(wsUrl);
  const pending = new Map();
  /** Every event frame after the challenge, with when it arrived. */
  const events = [];
  let challenge;
  const challenged = new Promise((resolve) => {
    challenge = resolve;
  });
  ws.addEventListener("message", (event) => {
    const frame = JSON.parse(String(event.data));
    if (frame.type === "event" && frame.event === "connect.challenge") challenge(frame.payload);
    else if (frame.type === "event")
      events.push({ at: Date.now(), event: frame.event, payload: frame.payload, seq: frame.seq });
    if (frame.type === "res" && pending.has(frame.id)) {
      pending.get(frame.id)(frame);
      pending.delete(frame.id);
    }
  });
  await new Promise((resolve, reject) => {
    ws.addEventListener("open", resolve, { once: true });
    ws.addEventListener("error", () => reject(new Error(`cannot open ${wsUrl}`)), { once: true });
  });
  await challenged;
  let next = 0;
  const call = (method, params = {}, timeoutMs = 20_000) =>
    new Promise((resolve, reject) => {
      const id = `e2e-${++next}`;
      const timer = setTimeout(() => reject(new Error(`${method}: no answer in ${timeoutMs} ms`)), timeoutMs);
      pending.set(id, (frame) => {
        clearTimeout(timer);
        resolve(frame);
      });
      ws.send(JSON.stringify({ type: "req", id, method, params }));
    });
  const hello = await call("connect", {
    minProtocol: 4,
    maxProtocol: 4,
    client: { id: "test", version: "1.0.0", platform: "node", mode: "test" },
    role: "operator",
    scopes: ["operator.read", "operator.write", "operator.admin"],
    auth: { token },
  });
  if (!hello.ok) throw new Error(`connect refused: ${JSON.stringify(hello.error)}`);
  return { call, events, hello: hello.payload, close: () => ws.close() };
}
