import { execFileSync } from "node:child_process";
import { createSign } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** RS256 keys and tokens for the Node tier, made with openssl and node:crypto (never the module under test). */

/** A throwaway key pair + self-signed certificate, made by openssl (independent of the module). */
export function makeKeyAndCert(): { privateKeyPem: string; certificatePem: string } {
  const dir = mkdtempSync(join(tmpdir(), "jwt-rs256-"));
  execFileSync(
    "openssl",
    ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=fake-google"].concat([
      "-keyout",
      join(dir, "key.pem"),
      "-out",
      join(dir, "cert.pem"),
    ]),
    { stdio: "ignore" },
  );
  return {
    privateKeyPem: readFileSync(join(dir, "key.pem"), "utf8"),
    certificatePem: readFileSync(join(dir, "cert.pem"), "utf8"),
  };
}

export function b64url(value: unknown): string {
  return btoa(JSON.stringify(value)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** An RS256 token signed with node:crypto, not with the module under test. */
export function referenceToken(claims: Record<string, unknown>, privateKeyPem: string, kid = "k1"): string {
  const signedPart = `${b64url({ alg: "RS256", typ: "JWT", kid })}.${b64url(claims)}`;
  const signature = createSign("RSA-SHA256").update(signedPart).sign(privateKeyPem).toString("base64url");
  return `${signedPart}.${signature}`;
}
