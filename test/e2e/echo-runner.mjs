// The webhook runner the channel e2e files answer turns with (its own HTTP server on 127.0.0.1):
// `ECHO: <message>`; a message containing "slow" is answered after `slowMs` (a run to kill
// mid-way); "LONG" answers 150 lines of 61 characters (9,149 in all: three parts on every
// platform); "MARKDOWN" answers `markdown`. `seen` lists the messages in the order they came.
import { createServer } from "node:http";
import { listenLoopback } from "./http-json.mjs";

export function startEchoRunner({ slowMs, markdown }) {
  const seen = [];
  const srv = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const message = String(JSON.parse(body).input?.message ?? "");
    seen.push(message);
    if (message.includes("slow")) await new Promise((resolve) => setTimeout(resolve, slowMs));
    const reply = message.includes("LONG")
      ? Array.from({ length: 150 }, (_, i) => `line ${String(i).padStart(4, "0")} ${"x".repeat(50)}`).join("\n")
      : message.includes("MARKDOWN")
        ? markdown
        : `ECHO: ${message}`;
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ reply }));
  });
  return listenLoopback(srv, { seen });
}
