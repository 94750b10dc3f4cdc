/**
 * Removes credentials a request sent from text that came back (a provider's error body, a
 * proxy's page, a fetch failure), before that text is stored, logged or returned: the value
 * itself and the forms in which servers usually print it — JSON-escaped, URL-encoded, base64
 * (also inside `user:value` as Basic auth sends it, standard and URL-safe alphabets) and
 * provider-style masks that keep some first and last characters (`sk-ab…wxyz`,
 * `sk-proj-****wxyz`). Pure: the one place every runner and sender redacts with. Unlike
 * src/render/redact.ts (OpenClaw's pattern masking of text agents read), it knows the values.
 */

/** What a credential, or a form of it, becomes. */
export const REDACTED = "[REDACTED]";
/** Below this length only the value's literal forms are searched (its encodings would match by chance). */
const FORM_MIN_CHARS = 8;
/** A mask shows at most this many characters of either end of the value. */
const MASK_VISIBLE_MAX_CHARS = 64;
/** Shown characters (both ends together) that make a mask recognisably this value's. */
const MASK_VISIBLE_MIN_CHARS = 4;
/** What servers put in place of the hidden middle of a key. */
const MASK_RUN = /(?:[*•…]|\.{2,})+/g;
/** Characters of a base64 run (either alphabet); `=` only pads its end. */
const BASE64_CHAR = /[A-Za-z0-9+/_-]/;

export function redactCredentials(text: string, credentials: Iterable<string | undefined>): string {
  const values = [...new Set([...credentials].filter((value): value is string => !!value))];
  // Longest first, so a credential that contains another is removed whole.
  values.sort((a, b) => b.length - a.length);
  let redacted = text;
  for (const value of values) redacted = redactOne(redacted, value);
  return redacted;
}

function redactOne(text: string, value: string): string {
  let redacted = text;
  for (const form of literalForms(value)) redacted = redacted.split(form).join(REDACTED);
  if (value.length < FORM_MIN_CHARS) return redacted;
  for (const core of base64Cores(value)) redacted = redactEncodedRuns(redacted, core);
  return redactMasks(redacted, value);
}

/** The value as written, JSON-escaped (with and without `\/`) and percent-encoded (either hex case, `+` for space). */
function literalForms(value: string): string[] {
  const json = JSON.stringify(value).slice(1, -1);
  const percent = encodeURIComponent(value);
  const forms = [
    value,
    json,
    json.replace(/\//g, "\\/"),
    percent,
    percent.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()),
    percent.replace(/%20/g, "+"),
  ];
  return [...new Set(forms)].sort((a, b) => b.length - a.length);
}

/**
 * The part of the value's base64 that is the same wherever the value starts in the encoded
 * bytes (after 0, 1 or 2 bytes mod 3, as after `user:`), in both alphabets: the characters that
 * mix in neighbouring bytes are left off.
 */
function base64Cores(value: string): string[] {
  const bytes = new TextEncoder().encode(value);
  const cores: string[] = [];
  for (const offset of [0, 1, 2]) {
    let binary = "\0".repeat(offset);
    for (const byte of bytes) binary += String.fromCharCode(byte);
    const encoded = btoa(binary);
    const core = encoded.slice([0, 2, 3][offset], 4 * Math.floor(binary.length / 3));
    if (core.length < FORM_MIN_CHARS) continue;
    cores.push(core, core.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  return [...new Set(cores)];
}

/** Replaces each whole base64 run that contains `core` (the run is the encoded credential). */
function redactEncodedRuns(text: string, core: string): string {
  let redacted = text;
  for (let at = redacted.indexOf(core); at >= 0; at = redacted.indexOf(core, at + REDACTED.length)) {
    let start = at;
    while (start > 0 && BASE64_CHAR.test(redacted[start - 1]!)) start--;
    let end = at + core.length;
    while (end < redacted.length && BASE64_CHAR.test(redacted[end]!)) end++;
    while (end < redacted.length && redacted[end] === "=") end++;
    redacted = redacted.slice(0, start) + REDACTED + redacted.slice(end);
    at = start;
  }
  return redacted;
}

/**
 * A mask run (`…`, `***`, `...`) with the value's first characters before it and its last
 * characters after it, showing at least MASK_VISIBLE_MIN_CHARS of them and hiding some.
 */
function redactMasks(text: string, value: string): string {
  let out = "";
  let copied = 0;
  for (const mask of text.matchAll(MASK_RUN)) {
    const start = mask.index;
    const end = start + mask[0].length;
    if (start < copied) continue;
    const head = sharedLength(Math.min(start - copied, value.length - 1), (n) =>
      text.endsWith(value.slice(0, n), start),
    );
    const tail = sharedLength(Math.min(text.length - end, value.length - 1), (n) =>
      text.startsWith(value.slice(value.length - n), end),
    );
    if (head + tail < MASK_VISIBLE_MIN_CHARS || head + tail >= value.length) continue;
    out += text.slice(copied, start - head) + REDACTED;
    copied = end + tail;
  }
  return out + text.slice(copied);
}

/** The longest n (up to `limit` and MASK_VISIBLE_MAX_CHARS) for which `matches(n)` holds, or 0. */
function sharedLength(limit: number, matches: (n: number) => boolean): number {
  for (let n = Math.min(limit, MASK_VISIBLE_MAX_CHARS); n > 0; n--) if (matches(n)) return n;
  return 0;
}
