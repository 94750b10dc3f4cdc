import { hmacKey, hmacSign } from "../../../auth/hmac";
import { toHex } from "../../../util/encoding";

/**
 * Slack's request signature (SPEC §4.1): `v0=` + hex HMAC-SHA256 of `v0:<timestamp>:<raw body>`
 * with the app's signing secret, and a timestamp within five minutes of now **in either
 * direction** (the real gateway accepts any future timestamp; a replay window must be closed at
 * both ends). Pure (WebCrypto only); the comparison is constant-time (`crypto.subtle.verify`).
 */

export const SIGNATURE_HEADER = "x-slack-signature";
export const TIMESTAMP_HEADER = "x-slack-request-timestamp";
/** How far a request's timestamp may be from now, past or future (Slack's own five minutes). */
export const SIGNATURE_WINDOW_SECONDS = 300;

const SIGNATURE_FORMAT = /^v0=([0-9a-f]{64})$/;

/** Whether the timestamp header is whole seconds within the window around `nowMs`. */
export function timestampInWindow(timestamp: string | undefined, nowMs: number): boolean {
  if (timestamp === undefined || !/^\d{1,12}$/.test(timestamp)) return false;
  return Math.abs(Math.floor(nowMs / 1000) - Number(timestamp)) <= SIGNATURE_WINDOW_SECONDS;
}

/** The `x-slack-signature` value Slack sends for this body (tests and tools sign with it). */
export async function slackSignature(secret: string, timestamp: string, body: string): Promise<string> {
  return `v0=${toHex(await hmacSign(secret, baseString(timestamp, body)))}`;
}

/**
 * Whether a request's signature headers could be Slack's at all (a timestamp in the window, a
 * `v0=` signature): checked before the body is read, so an unsigned upload is refused unread.
 */
export function slackHeadersPlausible(
  timestamp: string | undefined,
  signature: string | undefined,
  nowMs: number,
): boolean {
  return timestampInWindow(timestamp, nowMs) && SIGNATURE_FORMAT.test(signature ?? "");
}

/** True only for a well-formed signature of exactly this body and timestamp, with a fresh timestamp. */
export async function verifySlackSignature(input: {
  signingSecret: string;
  timestamp: string | undefined;
  signature: string | undefined;
  body: string;
  nowMs: number;
}): Promise<boolean> {
  if (!slackHeadersPlausible(input.timestamp, input.signature, input.nowMs)) return false;
  const hex = SIGNATURE_FORMAT.exec(input.signature ?? "")![1]!;
  const given = new Uint8Array(hex.match(/../g)!.map((byte) => Number.parseInt(byte, 16)));
  return crypto.subtle.verify(
    "HMAC",
    await hmacKey(input.signingSecret),
    given,
    new TextEncoder().encode(baseString(input.timestamp!, input.body)),
  );
}

function baseString(timestamp: string, body: string): string {
  return `v0:${timestamp}:${body}`;
}
