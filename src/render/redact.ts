/**
 * Secret redaction for text an agent reads from another session (OpenClaw's default patterns
 * of src/logging/redact.ts): API keys, tokens, passwords and PEM private keys are masked.
 */

// Masking format of openclaw src/logging/redact.ts: long tokens keep a short
// prefix/suffix so operators can still tell keys apart.
const REDACT_MIN_TOKEN_CHARS = 18;
const REDACT_KEEP_START_CHARS = 6;
const REDACT_KEEP_END_CHARS = 4;
const REDACT_SHORT_MASK = "***";

// Each pattern's LAST non-empty capture group is the secret; patterns without
// a group mask the whole match. Upstream compiles its list with the "gi" flags,
// so the keyword patterns are deliberately case-insensitive.
// Two local hardenings vs upstream: PEM blocks run first, and assignments only
// allow spaces/tabs around "=" / ":". Upstream's "\s*" lets "key:\n-----BEGIN"
// match first, which breaks the BEGIN line and leaves the key body unredacted.
const SECRET_PATTERNS: readonly RegExp[] = [
  // PEM private key blocks (handled specially: keep BEGIN/END lines).
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]+?-----END [A-Z ]*PRIVATE KEY-----/gi,
  // ENV-style / key=value assignments: API_KEY=..., token: ..., password="...".
  /\b[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD)\b[ \t]*[=:][ \t]*(["']?)([^\s"'\\]+)\1/gi,
  // JSON string fields with secret-ish names.
  /"(?:apiKey|token|secret|password|passwd|accessToken|refreshToken)"\s*:\s*"([^"]+)"/gi,
  // CLI flags: --api-key X, --token "X".
  /--(?:api[-_]?key|token|secret|password|passwd)\s+(["']?)([^\s"']+)\1/gi,
  // Authorization headers, then any long bare Bearer credential.
  /Authorization\s*[:=]\s*Bearer\s+([A-Za-z0-9._\-+=]+)/gi,
  /\bBearer\s+([A-Za-z0-9._\-+=]{18,})\b/gi,
  // Well-known token prefixes: OpenAI/Anthropic, GitHub, Slack, Groq, Google,
  // Perplexity, npm, Telegram bot tokens.
  /\b(sk-[A-Za-z0-9_-]{8,})\b/gi,
  /\b(ghp_[A-Za-z0-9]{20,})\b/gi,
  /\b(github_pat_[A-Za-z0-9_]{20,})\b/gi,
  /\b(xox[baprs]-[A-Za-z0-9-]{10,})\b/gi,
  /\b(xapp-[A-Za-z0-9-]{10,})\b/gi,
  /\b(gsk_[A-Za-z0-9_-]{10,})\b/gi,
  /\b(AIza[0-9A-Za-z_-]{20,})\b/gi,
  /\b(pplx-[A-Za-z0-9_-]{10,})\b/gi,
  /\b(npm_[A-Za-z0-9]{10,})\b/gi,
  /\b(\d{6,}:[A-Za-z0-9_-]{20,})\b/gi,
  // Local addition (not in upstream defaults): AWS access key ids, case-sensitive.
  /\b((?:AKIA|ASIA)[0-9A-Z]{16})\b/g,
];

const PEM_MARKER = "PRIVATE KEY-----";
const PASSWORD_WORD_RE = /\bpass(?:word)?\b|\bpasswd\b/i;

function maskToken(token: string): string {
  if (token.length < REDACT_MIN_TOKEN_CHARS) return REDACT_SHORT_MASK;
  return `${token.slice(0, REDACT_KEEP_START_CHARS)}…${token.slice(-REDACT_KEEP_END_CHARS)}`;
}

function maskPemBlock(block: string): string {
  const lines = block.split(/\r?\n/).filter((line) => line.length > 0);
  const first = lines[0];
  const last = lines.at(-1);
  if (lines.length < 2 || first === undefined || last === undefined) return REDACT_SHORT_MASK;
  return `${first}\n…redacted…\n${last}`;
}

function maskMatch(match: string, groups: readonly unknown[]): string {
  if (match.includes(PEM_MARKER)) return maskPemBlock(match);
  const secret = groups.filter((g): g is string => typeof g === "string" && g.length > 0).at(-1) ?? match;
  // Passwords are never partially shown, whatever their length.
  const masked = PASSWORD_WORD_RE.test(match) ? REDACT_SHORT_MASK : maskToken(secret);
  if (secret === match) return masked;
  // The secret sits at the end of the match (before an optional closing quote).
  const at = match.lastIndexOf(secret);
  return `${match.slice(0, at)}${masked}${match.slice(at + secret.length)}`;
}

/** Masks API keys, tokens, passwords and PEM private keys in free text. */
export function redactSecrets(text: string): { text: string; redacted: boolean } {
  if (!text) return { text, redacted: false };
  let next = text;
  for (const pattern of SECRET_PATTERNS) {
    next = next.replace(pattern, (match: string, ...rest: unknown[]) => {
      // rest = [...groups, offset, input] (no named groups in our patterns).
      return maskMatch(match, rest.slice(0, -2));
    });
  }
  return { text: next, redacted: next !== text };
}
