import { afterEach, describe, expect, it } from "vitest";
import { DEV } from "../support/helpers";
import { GatewayClient } from "../support/ws-helpers";

/** The connect handshake as the real OpenClaw gateway (2026.9.6) answers it. */

const open: GatewayClient[] = [];
afterEach(() => {
  for (const c of open.splice(0)) c.close();
});

async function opened() {
  const client = await GatewayClient.open();
  open.push(client);
  return client;
}

const b64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

async function deviceKeys() {
  const keys = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"])) as CryptoKeyPair;
  const raw = new Uint8Array((await crypto.subtle.exportKey("raw", keys.publicKey)) as ArrayBuffer);
  const id = Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", raw)), (b) =>
    b.toString(16).padStart(2, "0"),
  ).join("");
  return { keys, raw, id };
}

type SignOptions = {
  version: "v2" | "v3";
  /** What goes into the signed payload's platform/deviceFamily fields. */
  signedPlatform?: string;
  signedFamily?: string;
  /** What the client block says. */
  platform?: string;
  deviceFamily?: string;
  scopes?: string[];
  signedAt?: number;
  tamperId?: boolean;
  token?: string;
};

/** Connects with a device block signed the way OpenClaw clients sign it. */
async function connectWithDevice(options: SignOptions) {
  const device = await deviceKeys();
  const client = await opened();
  const challenge = (await client.waitFor((f) => f.event === "connect.challenge")).payload;
  const signedAt = options.signedAt ?? Date.now();
  const scopes = options.scopes ?? ["operator.read"];
  const token = options.token ?? DEV;
  const fields = ["cli", "cli", "operator", scopes.join(","), String(signedAt), token, challenge.nonce];
  const payload =
    options.version === "v3"
      ? ["v3", device.id, ...fields, options.signedPlatform ?? "", options.signedFamily ?? ""].join("|")
      : ["v2", device.id, ...fields].join("|");
  const signature = new Uint8Array(
    await crypto.subtle.sign({ name: "Ed25519" }, device.keys.privateKey, new TextEncoder().encode(payload)),
  );
  const res = await client.request("connect", {
    minProtocol: 4,
    maxProtocol: 4,
    client: {
      id: "cli",
      version: "2026.9.6",
      platform: options.platform ?? "linux",
      ...(options.deviceFamily !== undefined ? { deviceFamily: options.deviceFamily } : {}),
      mode: "cli",
    },
    role: "operator",
    scopes,
    auth: { token },
    device: {
      id: options.tamperId ? device.id.replace(/^./, (c) => (c === "0" ? "1" : "0")) : device.id,
      publicKey: b64url(device.raw),
      signature: b64url(signature),
      signedAt,
      nonce: challenge.nonce,
    },
  });
  return { client, res };
}

describe("device signatures (v3 first, then v2)", () => {
  it("accepts the v3 payload the openclaw CLI signs, with platform and device family trimmed and lowercased", async () => {
    const { res } = await connectWithDevice({
      version: "v3",
      platform: " Linux ",
      deviceFamily: "MacBook",
      signedPlatform: "linux",
      signedFamily: "macbook",
    });
    expect(res.ok).toBe(true);
    expect(res.payload.type).toBe("hello-ok");
  });

  it("accepts a v3 payload whose device family is absent (empty last field)", async () => {
    const { res } = await connectWithDevice({ version: "v3", platform: "linux", signedPlatform: "linux" });
    expect(res.ok).toBe(true);
  });

  it("still accepts the v2 payload openclaw-node signs", async () => {
    const { res } = await connectWithDevice({ version: "v2", platform: "linux", deviceFamily: "Linux" });
    expect(res.ok).toBe(true);
  });

  it("refuses a v3 payload signed over the unnormalised platform with OpenClaw's details, closing 1008 with the message", async () => {
    const { client, res } = await connectWithDevice({
      version: "v3",
      platform: "Linux",
      signedPlatform: "Linux",
    });
    expect(res.error).toEqual({
      code: "INVALID_REQUEST",
      message: "device signature invalid",
      details: { code: "DEVICE_AUTH_SIGNATURE_INVALID", reason: "device-signature" },
    });
    expect(await client.waitForClose()).toMatchObject({ code: 1008, reason: "device signature invalid" });
  });

  it("names a device id that is not the key's sha256 and a stale timestamp as the real gateway does", async () => {
    const mismatch = await connectWithDevice({ version: "v3", tamperId: true });
    expect(mismatch.res.error).toEqual({
      code: "INVALID_REQUEST",
      message: "device identity mismatch",
      details: { code: "DEVICE_AUTH_DEVICE_ID_MISMATCH", reason: "device-id-mismatch" },
    });
    const stale = await connectWithDevice({ version: "v3", signedAt: Date.now() - 3 * 60_000 });
    expect(stale.res.error).toEqual({
      code: "INVALID_REQUEST",
      message: "device signature expired",
      details: { code: "DEVICE_AUTH_SIGNATURE_EXPIRED", reason: "device-signature-stale" },
    });
  });
});

describe("handshake errors", () => {
  it("answers a protocol mismatch with PROTOCOL_MISMATCH details and closes 1002", async () => {
    const client = await opened();
    const res = await client.handshake({ protocol: [5, 5] });
    // The challenge names its optional capabilities: none here.
    expect(res.challenge).toEqual({ nonce: expect.any(String), ts: expect.any(Number), capabilities: [] });
    expect(res.error).toMatchObject({
      code: "INVALID_REQUEST",
      message: "protocol mismatch",
      details: {
        code: "PROTOCOL_MISMATCH",
        clientMinProtocol: 5,
        clientMaxProtocol: 5,
        expectedProtocol: 4,
        minimumProbeProtocol: 3,
      },
    });
    // Exactly the real gateway's details (no list of supported protocols besides them).
    expect(Object.keys(res.error.details).sort()).toEqual([
      "clientMaxProtocol",
      "clientMinProtocol",
      "code",
      "expectedProtocol",
      "minimumProbeProtocol",
    ]);
    expect(await client.waitForClose()).toMatchObject({ code: 1002, reason: "protocol mismatch" });
  });

  it("refuses a wrong token with authReason and the next step, the message as close reason", async () => {
    const client = await opened();
    const res = await client.handshake({ token: "wrong-token" });
    const message = "unauthorized: gateway token mismatch (provide gateway auth token)";
    expect(res.error).toEqual({
      code: "INVALID_REQUEST",
      message,
      details: {
        code: "AUTH_TOKEN_MISMATCH",
        authReason: "token_mismatch",
        canRetryWithDeviceToken: false,
        recommendedNextStep: "update_auth_credentials",
      },
    });
    expect(await client.waitForClose()).toMatchObject({ code: 1008, reason: message });
  });

  it("hints the remote-token setting to cli clients", async () => {
    const client = await opened();
    await client.waitFor((f) => f.event === "connect.challenge");
    const res = await client.request("connect", {
      minProtocol: 4,
      maxProtocol: 4,
      client: { id: "cli", version: "1", platform: "linux", mode: "cli" },
      auth: { token: "wrong-token" },
    });
    expect(res.error.message).toBe(
      "unauthorized: gateway token mismatch (set gateway.remote.token to match gateway.auth.token)",
    );
  });

  it("answers NOT_PAIRED 'device identity required' when neither a token nor a device is sent", async () => {
    const client = await opened();
    const res = await client.handshake({ extra: { auth: {} } });
    expect(res.error).toEqual({
      code: "NOT_PAIRED",
      message: "device identity required",
      details: { code: "DEVICE_IDENTITY_REQUIRED" },
    });
    expect(await client.waitForClose()).toMatchObject({ code: 1008, reason: "device identity required" });
  });
});

describe("hello-ok auth", () => {
  it("keeps every requested scope the token satisfies, operator.approvals included, and names the method", async () => {
    const client = await opened();
    const res = await client.handshake({
      scopes: ["operator.admin", "operator.read", "operator.write", "operator.approvals"],
    });
    expect(res.payload.auth).toEqual({
      method: "token",
      role: "operator",
      scopes: ["operator.admin", "operator.read", "operator.write", "operator.approvals"],
    });
  });
});
