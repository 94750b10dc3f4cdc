import { describe, expect, it } from "vitest";
import { UPSTREAM_DETAIL_MAX_CHARS, upstreamFailureDetail } from "../../../src/runs/runners/upstream-failure";
import { REDACTED, redactCredentials } from "../../../src/secrets/redact-credentials";

const KEY = "sk-proj-AbCdEf0123456789/xYz+Qr_wxyz";
const b64 = (text: string) => Buffer.from(text).toString("base64");
const b64url = (text: string) => Buffer.from(text).toString("base64url");

/** No trace: neither the key, nor a long piece of it, nor its end that masks show. */
function expectNoTrace(text: string) {
  expect(text).not.toContain(KEY);
  expect(text).not.toContain(KEY.slice(8, 24));
  expect(text).not.toContain("wxyz");
}

describe("redactCredentials", () => {
  it("removes the value as sent", () => {
    const out = redactCredentials(`invalid key ${KEY}, check it`, [KEY]);
    expect(out).toBe(`invalid key ${REDACTED}, check it`);
  });

  it("removes it JSON-escaped, also with escaped slashes", () => {
    const quoted = `sk-"q\\${KEY}`;
    const out = redactCredentials(JSON.stringify({ error: `bad ${quoted}` }), [quoted]);
    expect(out).toBe(JSON.stringify({ error: `bad ${REDACTED}` }));
    expect(redactCredentials(`{"key":"${KEY.replace("/", "\\/")}"}`, [KEY])).toBe(`{"key":"${REDACTED}"}`);
  });

  it("removes it URL-encoded (either hex case, + for space)", () => {
    const upper = encodeURIComponent(KEY);
    const lower = upper.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase());
    expect(upper).not.toBe(KEY);
    for (const form of [upper, lower])
      expect(redactCredentials(`GET /?key=${form}&x=1`, [KEY])).toBe(`GET /?key=${REDACTED}&x=1`);
    const spaced = "my secret pass phrase";
    expect(redactCredentials("p=my+secret+pass+phrase", [spaced])).toBe(`p=${REDACTED}`);
  });

  it("removes its base64, alone and inside user:value (Basic auth) at every alignment, in both alphabets", () => {
    for (const user of ["", "u", "us", "user", "apikey"]) {
      const basic = b64(`${user}:${KEY}`);
      const out = redactCredentials(`got Authorization: Basic ${basic} (refused)`, [KEY]);
      expect(out).toBe(`got Authorization: Basic ${REDACTED} (refused)`);
      expect(redactCredentials(`token=${b64url(`${user}:${KEY}`)}`, [KEY])).toBe(`token=${REDACTED}`);
    }
    expect(redactCredentials(`raw ${b64(KEY)}.`, [KEY])).toBe(`raw ${REDACTED}.`);
    expect(redactCredentials(`padded ${b64(`${KEY}ab`)}==, done`, [KEY])).toBe(`padded ${REDACTED}, done`);
  });

  it("removes provider-style masks that keep its first and last characters", () => {
    const masks = [
      `${KEY.slice(0, 5)}…${KEY.slice(-4)}`,
      `${KEY.slice(0, 5)}***${KEY.slice(-4)}`,
      `${KEY.slice(0, 8)}${"*".repeat(28)}${KEY.slice(-4)}`,
      `${KEY.slice(0, 4)}...${KEY.slice(-4)}`,
      `****${KEY.slice(-4)}`,
      `${KEY.slice(0, 3)}•••${KEY.slice(-4)}`,
    ];
    for (const mask of masks) {
      const out = redactCredentials(`Incorrect API key provided: ${mask}. See docs.`, [KEY]);
      expect(out).toBe(`Incorrect API key provided: ${REDACTED}. See docs.`);
      expectNoTrace(out);
    }
  });

  it("leaves text without the credential alone, and masks that are not this key's", () => {
    const text = "Loading... model exploded *** try sk-ab…zzzz later";
    expect(redactCredentials(text, [KEY])).toBe(text);
    expect(redactCredentials(text, [])).toBe(text);
    expect(redactCredentials(text, [undefined, ""])).toBe(text);
  });

  it("removes every credential given, the longer first", () => {
    const inner = KEY.slice(0, 20);
    const out = redactCredentials(`a ${KEY} b ${inner} c`, [inner, KEY, undefined]);
    expect(out).toBe(`a ${REDACTED} b ${REDACTED} c`);
  });

  it("removes all of them in one text (a proxy printing every form)", () => {
    const echoed = JSON.stringify({
      error: `invalid key ${KEY} (${KEY.slice(0, 5)}…${KEY.slice(-4)}; Basic ${b64(`user:${KEY}`)}; q=${encodeURIComponent(KEY)})`,
    });
    const out = redactCredentials(echoed, [KEY]);
    expectNoTrace(out);
    expect(out).not.toContain(b64(`user:${KEY}`).slice(8, 30));
    expect(out.split(REDACTED)).toHaveLength(5);
  });
});

describe("upstreamFailureDetail", () => {
  it("redacts before it cuts to 200 characters, so a key crossing the cut leaves no piece behind", async () => {
    // The key starts 5 characters before the cut: cut first, "sk-pr" would stay.
    const body = `${"x".repeat(182)} invalid key ${KEY}`;
    const detail = await upstreamFailureDetail(new Response(body, { status: 401 }), [KEY]);
    expect(detail).toHaveLength(UPSTREAM_DETAIL_MAX_CHARS);
    expect(detail).not.toContain(KEY.slice(0, 5));
    expect(detail.endsWith(" invalid key [REDA")).toBe(true);
  });
});
