// A WebSocket client on a bare TCP socket, for tests that must see the wire: when the server's
// close frame arrives (code, reason) apart from when the TCP connection ends. WebSocket libraries
// (ws, undici, browsers) report a close only once TCP is down, which hides the frame's time.
import { randomBytes } from "node:crypto";
import { connect } from "node:net";

/**
 * Opens `url` (ws://host:port/path) and answers the server's close frame like a client does.
 * Resolves `opened` with the socket; `firstMessage` ({ at, text }), `closeFrame`
 * ({ code, reason, at }) and `endedAt` are promises; `at` is wall-clock milliseconds.
 */
export function openRawWebSocket(url) {
  const { hostname, port, pathname, search } = new URL(url);
  const socket = connect(Number(port), hostname);
  let buffer = Buffer.alloc(0);
  let upgraded = false;
  const deferred = () => {
    let resolve;
    const promise = new Promise((done) => {
      resolve = done;
    });
    return { promise, resolve };
  };
  const opened = deferred();
  const firstMessage = deferred();
  const closeFrame = deferred();
  const ended = deferred();
  socket.on("connect", () => {
    socket.write(
      `GET ${pathname}${search} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\n` +
        `Connection: Upgrade\r\nSec-WebSocket-Key: ${randomBytes(16).toString("base64")}\r\n` +
        "Sec-WebSocket-Version: 13\r\n\r\n",
    );
  });
  socket.on("data", (chunk) => {
    buffer = Buffer.concat([buffer, chunk]);
    if (!upgraded) {
      const end = buffer.indexOf("\r\n\r\n");
      if (end < 0) return;
      const status = buffer.subarray(0, buffer.indexOf("\r\n")).toString();
      if (!status.includes(" 101 ")) {
        socket.destroy(new Error(`upgrade refused: ${status}`));
        return;
      }
      upgraded = true;
      buffer = buffer.subarray(end + 4);
      opened.resolve(socket);
    }
    for (let frame = nextFrame(buffer); frame; frame = nextFrame(buffer)) {
      buffer = buffer.subarray(frame.size);
      if (frame.opcode === 0x1 || frame.opcode === 0x2) {
        firstMessage.resolve({ at: Date.now(), text: frame.payload.toString() });
      }
      if (frame.opcode === 0x8) {
        const code = frame.payload.length >= 2 ? frame.payload.readUInt16BE(0) : 1005;
        closeFrame.resolve({ code, reason: frame.payload.subarray(2).toString(), at: Date.now() });
        socket.write(maskedClose(code));
      }
    }
  });
  socket.on("close", () => ended.resolve(Date.now()));
  socket.on("error", () => {});
  return {
    opened: opened.promise,
    firstMessage: firstMessage.promise,
    closeFrame: closeFrame.promise,
    endedAt: ended.promise,
    /** Sends one text frame (masked, as a client must). */
    sendText: (text) => socket.write(maskedFrame(0x1, Buffer.from(text))),
    destroy: () => socket.destroy(),
  };
}

/** One unmasked server frame at the start of `buffer`, or null while it is incomplete. */
function nextFrame(buffer) {
  if (buffer.length < 2) return null;
  const opcode = buffer[0] & 0x0f;
  let length = buffer[1] & 0x7f;
  let offset = 2;
  if (length === 126) {
    if (buffer.length < 4) return null;
    length = buffer.readUInt16BE(2);
    offset = 4;
  } else if (length === 127) {
    if (buffer.length < 10) return null;
    length = Number(buffer.readBigUInt64BE(2));
    offset = 10;
  }
  if (buffer.length < offset + length) return null;
  return { opcode, payload: buffer.subarray(offset, offset + length), size: offset + length };
}

/** A client's close frame echoing `code`. */
function maskedClose(code) {
  const payload = Buffer.alloc(2);
  payload.writeUInt16BE(code === 1005 ? 1000 : code);
  return maskedFrame(0x8, payload);
}

/** One final client frame (clients must mask what they send); payloads under 126 bytes. */
function maskedFrame(opcode, payload) {
  const mask = randomBytes(4);
  const masked = Buffer.from(payload.map((byte, i) => byte ^ mask[i % 4]));
  return Buffer.concat([Buffer.from([0x80 | opcode, 0x80 | payload.length]), mask, masked]);
}
