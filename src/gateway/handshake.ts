import type { z } from "zod";
import { type ConnectParams, SUPPORTED_PROTOCOLS } from "../protocol/gateway";
import { OPERATOR_SCOPES, type OperatorScope } from "../protocol/http";
import { fromBase64Url, toHex } from "../util/encoding";

/** Pure decisions of the connect handshake: protocol, scopes, device signature, error texts. */

/** The highest protocol both sides speak, or null (→ "protocol mismatch", close 1002). */
export function negotiateProtocol(minProtocol: number, maxProtocol: number): 3 | 4 | null {
  for (const version of [...SUPPORTED_PROTOCOLS].reverse()) {
    if (version >= minProtocol && version <= maxProtocol) return version;
  }
  return null;
}

/** Requested scopes the token holds (write/admin imply read); none requested = all the token has. */
export function grantScopes(requested: string[] | undefined, held: readonly OperatorScope[]): OperatorScope[] {
  const known = (requested ?? held).filter((s): s is OperatorScope =>
    (OPERATOR_SCOPES as readonly string[]).includes(s),
  );
  return [...new Set(known.filter((scope) => satisfies(held, scope)))];
}

/** Every operator scope OpenClaw knows (hello-ok echoes the requested ones the token satisfies). */
export const OPENCLAW_OPERATOR_SCOPES = [
  "operator.admin",
  "operator.read",
  "operator.write",
  "operator.sessions.read",
  "operator.sessions.write",
  "operator.approvals",
  "operator.questions",
  "operator.pairing",
  "operator.talk",
  "operator.talk.secrets",
] as const;

/** OpenClaw's implications: admin ⊇ all; write ⊇ read, talk, sessions.*; read ⊇ sessions.read. */
function satisfies(held: readonly OperatorScope[], scope: string): boolean {
  if (held.includes("operator.admin")) return true;
  if ((held as readonly string[]).includes(scope)) return true;
  const write = held.includes("operator.write");
  const read = held.includes("operator.read");
  if (["operator.read", "operator.talk", "operator.sessions.read", "operator.sessions.write"].includes(scope)) {
    return write || (scope === "operator.sessions.read" && read);
  }
  return false;
}

/**
 * The scopes hello-ok reports: every requested OpenClaw scope the token satisfies, in the
 * order asked (so `operator.approvals` stays for an admin token); none requested = the token's.
 */
export function grantedScopeNames(requested: string[] | undefined, held: readonly OperatorScope[]): string[] {
  if (requested === undefined) return [...held];
  const known = requested.filter((s) => (OPENCLAW_OPERATOR_SCOPES as readonly string[]).includes(s));
  return [...new Set(known.filter((scope) => satisfies(held, scope)))];
}

/** What a device signs, besides the device id and its own timestamp/nonce. */
export type DeviceSignatureContext = {
  nonce: string;
  clientId: string;
  clientMode: string;
  role: string;
  scopes: string[];
  /** `auth.token`, else `auth.deviceToken`, else `auth.bootstrapToken`, else "". */
  token: string;
  /** `client.platform` / `client.deviceFamily` as sent (normalised for v3). */
  platform?: unknown;
  deviceFamily?: unknown;
  now: number;
};

/** v3 metadata fields: trimmed, ASCII-lowercased, "" when absent or not a string (as OpenClaw signs them). */
export function normalizeDeviceMetadata(value: unknown): string {
  if (typeof value !== "string") return "";
  return value.trim().replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/**
 * OpenClaw's device signature payloads. v3 (the `openclaw` CLI, TUI and MCP bridge) adds the
 * normalised platform and device family; v2 (openclaw-node) ends at the nonce.
 */
export function devicePayload(
  version: "v2" | "v3",
  input: {
    deviceId: string;
    clientId: string;
    clientMode: string;
    role: string;
    scopes: string[];
    signedAt: number;
    token: string;
    nonce: string;
    platform?: unknown;
    deviceFamily?: unknown;
  },
): string {
  const fields = [
    version,
    input.deviceId,
    input.clientId,
    input.clientMode,
    input.role,
    input.scopes.join(","),
    String(input.signedAt),
    input.token,
    input.nonce,
  ];
  if (version === "v3") {
    fields.push(normalizeDeviceMetadata(input.platform), normalizeDeviceMetadata(input.deviceFamily));
  }
  return fields.join("|");
}

/** How far a device signature's timestamp may drift from the server clock (OpenClaw: 2 minutes). */
export const DEVICE_SIGNATURE_SKEW_MS = 2 * 60_000;

/** A refused device proof: OpenClaw's message, `details.code` and `details.reason`. */
export type DeviceFailure = { message: string; code: string; reason: string };

const deviceFailure = (message: string, code: string, reason: string): DeviceFailure => ({ message, code, reason });

/**
 * Verifies the optional ed25519 `device` block in the real gateway's order: id = sha256 of
 * the raw public key, timestamp within the skew, nonce of this challenge, signature over the
 * v3 payload or else the v2 payload. Returns the failure, or null when valid.
 */
export async function verifyDevice(
  device: NonNullable<ConnectParams["device"]>,
  context: DeviceSignatureContext,
): Promise<DeviceFailure | null> {
  const publicKey = fromBase64Url(device.publicKey);
  if (publicKey?.byteLength !== 32) {
    return deviceFailure("device public key invalid", "DEVICE_AUTH_PUBLIC_KEY_INVALID", "device-public-key");
  }
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", publicKey));
  if (toHex(digest) !== device.id.toLowerCase()) {
    return deviceFailure("device identity mismatch", "DEVICE_AUTH_DEVICE_ID_MISMATCH", "device-id-mismatch");
  }
  if (Math.abs(context.now - device.signedAt) > DEVICE_SIGNATURE_SKEW_MS) {
    return deviceFailure("device signature expired", "DEVICE_AUTH_SIGNATURE_EXPIRED", "device-signature-stale");
  }
  if (!device.nonce)
    return deviceFailure("device nonce required", "DEVICE_AUTH_NONCE_REQUIRED", "device-nonce-missing");
  if (device.nonce !== context.nonce) {
    return deviceFailure("device nonce mismatch", "DEVICE_AUTH_NONCE_MISMATCH", "device-nonce-mismatch");
  }
  const invalid = deviceFailure("device signature invalid", "DEVICE_AUTH_SIGNATURE_INVALID", "device-signature");
  const signature = fromBase64Url(device.signature);
  if (!signature) return invalid;
  let key: CryptoKey;
  try {
    key = await crypto.subtle.importKey("raw", publicKey, { name: "Ed25519" }, false, ["verify"]);
  } catch {
    return deviceFailure("device public key invalid", "DEVICE_AUTH_PUBLIC_KEY_INVALID", "device-public-key");
  }
  for (const version of ["v3", "v2"] as const) {
    const payload = devicePayload(version, {
      ...context,
      deviceId: device.id,
      signedAt: device.signedAt,
      nonce: device.nonce,
    });
    try {
      if (await crypto.subtle.verify({ name: "Ed25519" }, key, signature, new TextEncoder().encode(payload)))
        return null;
    } catch {
      return invalid;
    }
  }
  return invalid;
}

/** The hint OpenClaw appends to a token failure, by client kind (this service is a remote gateway). */
export function authHint(client: { id: string; mode: string }, missing: boolean): string {
  if (client.mode === "cli") return "set gateway.remote.token to match gateway.auth.token";
  const operatorUi = ["openclaw-control-ui", "openclaw-browser-copilot", "openclaw-tui"].includes(client.id);
  if (operatorUi || client.mode === "webchat" || client.id === "webchat-ui") {
    return missing
      ? "paste in Control UI settings or openclaw doctor --generate-gateway-token; restart"
      : "open the dashboard URL and paste the token in Control UI settings";
  }
  return "provide gateway auth token";
}

/** OpenClaw's refusal of a missing or wrong shared token: message and details. */
export function tokenFailure(input: {
  client: { id: string; mode: string };
  missing: boolean;
  hasDevice: boolean;
  sentDeviceToken: boolean;
}): { message: string; details: Record<string, unknown> } {
  const retry = !input.missing && input.hasDevice && !input.sentDeviceToken;
  return {
    message: `unauthorized: gateway token ${input.missing ? "missing" : "mismatch"} (${authHint(input.client, input.missing)})`,
    details: {
      code: input.missing ? "AUTH_TOKEN_MISSING" : "AUTH_TOKEN_MISMATCH",
      authReason: input.missing ? "token_missing" : "token_mismatch",
      canRetryWithDeviceToken: retry,
      recommendedNextStep: retry
        ? "retry_with_device_token"
        : input.missing
          ? "update_auth_configuration"
          : "update_auth_credentials",
    },
  };
}

/** A close reason: the message cut to 120 UTF-8 bytes (the WebSocket limit is 123). */
export function closeReason(message: string): string {
  const bytes = new TextEncoder().encode(message);
  if (bytes.byteLength <= 120) return message;
  return new TextDecoder().decode(bytes.slice(0, 120)).replace(/\uFFFD+$/, "");
}

/**
 * zod issues in the words of OpenClaw's validation messages, for what this service checks
 * beyond the real schema (parse with `reportInput: true` so a missing property is told apart
 * from a wrong type).
 */
export function describeParamsError(error: z.ZodError): string {
  const parts = error.issues.slice(0, 3).map((issue) => {
    const path = issue.path.map(String);
    const at = (segments: string[]) => (segments.length ? `at /${segments.join("/")}: ` : "");
    if (issue.code === "invalid_type" && issue.input === undefined && path.length > 0) {
      const field = path.pop();
      return `${at(path)}must have required property '${field}'`;
    }
    if (issue.code === "invalid_type")
      return `${at(path)}must be ${issue.expected === "int" ? "integer" : issue.expected}`;
    if (issue.code === "unrecognized_keys") {
      return `${path.length ? `at /${path.join("/")}` : "at root"}: unexpected property '${issue.keys[0]}'`;
    }
    return `${at(path)}${issue.message}`;
  });
  return [...new Set(parts)].join("; ");
}
