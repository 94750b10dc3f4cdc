import type { ConsentDescription } from "@cloudflare/workers-oauth-provider";
import { TOOL_DECLARATIONS } from "../protocol/tool-specs/tool-declarations";
import { OAUTH_SCOPES } from "./oauth-provider";

/** The authorization page: who asks, where the code goes, the operator token field, the scopes. */

/** The tools each scope opens, as MCP checks them (read-only tools need operator.read, the rest operator.write). */
const toolNames = (readOnly: boolean) =>
  TOOL_DECLARATIONS.filter((tool) => tool.readOnly === readOnly)
    .map((tool) => tool.name)
    .join(", ");

const SCOPE_TEXT: Record<string, string> = {
  "operator.read": `Read sessions and transcripts (${toolNames(true)}, resources)`,
  "operator.write": `Act on sessions (${toolNames(false)})`,
};

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]!);

export function consentPage(input: {
  tenantId: string;
  consent: ConsentDescription;
  handle: string;
  checked: readonly string[];
  error?: string;
}): string {
  const { consent } = input;
  const client = escapeHtml(consent.clientName);
  const scopes = OAUTH_SCOPES.map(
    (scope) =>
      `<label><input type="checkbox" name="scope" value="${scope}"${input.checked.includes(scope) ? " checked" : ""}> <code>${scope}</code>: ${escapeHtml(SCOPE_TEXT[scope] ?? scope)}</label>`,
  ).join("\n");
  const loopbackNote = consent.redirectIsLoopback
    ? "<p class=note>The code goes to a program on the client's own computer; any local program could be listening there.</p>"
    : "";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Connect ${client} to OpenClaw sessions</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}label{display:block;margin:.5rem 0}
textarea{width:100%;font:14px monospace}.error{color:#b00020;font-weight:600}.note{color:#555}button{font-size:1rem;margin-right:1rem}</style>
</head><body>
<h1>Connect ${client}</h1>
<p><strong>${client}</strong>${consent.clientDomain ? ` (${escapeHtml(consent.clientDomain)})` : " (name not verified)"} asks to use the OpenClaw session tools of tenant <code>${escapeHtml(input.tenantId)}</code>.
The authorization goes to <strong>${escapeHtml(consent.redirectHost)}</strong>.</p>
${loopbackNote}
${input.error ? `<p class=error role=alert>${escapeHtml(input.error)}</p>` : ""}
<form method="post">
<input type="hidden" name="handle" value="${escapeHtml(input.handle)}">
<label for="token">Paste an operator token of this tenant to prove you may grant this:</label>
<textarea id="token" name="token" rows="2" autocomplete="off" spellcheck="false" required></textarea>
<fieldset><legend>Allow</legend>
${scopes}
</fieldset>
<p class=note>The connector never sees the token; it gets its own token with these scopes, which you can revoke. Revoking the operator token ends the connector's access too.</p>
<button type="submit" name="action" value="approve">Allow</button>
<button type="submit" name="action" value="deny" formnovalidate>Deny</button>
</form>
</body></html>`;
}

export function errorPage(message: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Authorization failed</title></head>
<body style="font:16px system-ui,sans-serif;max-width:40rem;margin:2rem auto"><h1>Authorization failed</h1><p>${escapeHtml(message)}</p></body></html>`;
}
