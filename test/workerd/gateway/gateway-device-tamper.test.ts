import { afterEach, describe, expect, it } from "vitest";
import { DEV } from "../support/helpers";
import { GatewayClient } from "../support/ws-helpers";

/**
 * The v3 device signature binds every field it covers: a connect frame signed the way the
 * `openclaw` CLI signs it is accepted as sent, and refused once any signed field is changed
 * after signing (a replayed or edited frame cannot widen its scopes or pose as another client).
 */

const open: GatewayClient[] = [];
afterEach(() => {
  for (const c of open.splice(0)) c.close();
});

const b64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

type ConnectParams = {
  client: { id: string; version: string; platform: string; deviceFamily?: string; mode: string };
  role: string;
  scopes: string[];
  device: { id: string; publicKey: string; signature: string; signedAt: number; nonce: string };
  [key: string]: unknown;
};

/** A connect frame as the CLI builds it: v3 payload over the normalised platform and device family. */
async function signedConnect(nonce: string): Promise<ConnectParams> {
  const keys = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"])) as CryptoKeyPair;
  const raw = new Uint8Array((await crypto.subtle.exportKey("raw", keys.publicKey)) as ArrayBuffer);
  const deviceId = Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", raw)), (b) =>
    b.toString(16).padStart(2, "0"),
  ).join("");
  const signedAt = Date.now();
  const scopes = ["operator.read", "operator.write"];
  const payload = [
    "v3",
    deviceId,
    "cli",
    "cli",
    "operator",
    scopes.join(","),
    String(signedAt),
    DEV,
    nonce,
    "linux",
    "linux",
  ].join("|");
  const signature = new Uint8Array(
    await crypto.subtle.sign({ name: "Ed25519" }, keys.privateKey, new TextEncoder().encode(payload)),
  );
  return {
    minProtocol: 4,
    maxProtocol: 4,
    client: { id: "cli", version: "2026.9.6", platform: "linux", deviceFamily: "Linux", mode: "cli" },
    role: "operator",
    scopes,
    auth: { token: DEV },
    device: { id: deviceId, publicKey: b64url(raw), signature: b64url(signature), signedAt, nonce },
  };
}

async function connect(tamper: (params: ConnectParams) => void) {
  const client = await GatewayClient.open();
  open.push(client);
  const challenge = (await client.waitFor((f) => f.event === "connect.challenge")).payload;
  const params = await signedConnect(challenge.nonce);
  tamper(params);
  return { client, res: await client.request("connect", params) };
}

const flipLastSignatureChar = (signature: string) =>
  signature.slice(0, -2) + (signature.at(-2) === "A" ? "B" : "A") + signature.at(-1);

describe("v3 device signature against tampering", () => {
  it("accepts the frame exactly as signed", async () => {
    const { res } = await connect(() => {});
    expect(res.ok).toBe(true);
    expect(res.payload.type).toBe("hello-ok");
  });

  it.each([
    ["a widened scope list", (p: ConnectParams) => p.scopes.push("operator.admin")],
    [
      "another client id",
      (p: ConnectParams) => {
        p.client.id = "openclaw-tui";
      },
    ],
    [
      "another client mode",
      (p: ConnectParams) => {
        p.client.mode = "ui";
      },
    ],
    [
      "another platform",
      (p: ConnectParams) => {
        p.client.platform = "darwin";
      },
    ],
    [
      "another device family",
      (p: ConnectParams) => {
        p.client.deviceFamily = "iPhone";
      },
    ],
    [
      "a dropped device family",
      (p: ConnectParams) => {
        p.client.deviceFamily = undefined;
      },
    ],
    [
      "a moved signing time",
      (p: ConnectParams) => {
        p.device.signedAt -= 1;
      },
    ],
    [
      "a changed signature",
      (p: ConnectParams) => {
        p.device.signature = flipLastSignatureChar(p.device.signature);
      },
    ],
  ])("refuses the frame after %s, with OpenClaw's error, closing 1008", async (_what, tamper) => {
    const { client, res } = await connect(tamper);
    expect(res.ok).toBe(false);
    expect(res.error).toEqual({
      code: "INVALID_REQUEST",
      message: "device signature invalid",
      details: { code: "DEVICE_AUTH_SIGNATURE_INVALID", reason: "device-signature" },
    });
    expect(await client.waitForClose()).toMatchObject({ code: 1008, reason: "device signature invalid" });
  });
});
