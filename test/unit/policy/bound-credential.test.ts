import { describe, expect, it } from "vitest";
import { boundCredentialRefusal, unboundCredential } from "../../../src/policy/bound-credential";
import { guardedFetch } from "../../../src/policy/guarded-fetch";

/**
 * A credential bound to hosts is held to them on every request that attaches it (guardedFetch's
 * `carries`): a Slack bot token whose store entry allows `slack.example` (a proxy as apiRoot) is
 * not sent to Slack's file host when `files.info` answers a `url_private` there.
 */

const bound = { value: "xoxb-bound-0000", secretId: "SLACK_BOT", allowedHosts: ["slack.example"] };
const policy = { allowLoopback: false, allowedHosts: [], ownOrigins: [] };

describe("boundCredentialRefusal", () => {
  it("refuses a host outside allowedHosts, naming the entry and its hosts", () => {
    expect(boundCredentialRefusal(bound, new URL("https://files.slack.com/files-pri/T/F/pic.png"), false)).toBe(
      'Secret "SLACK_BOT" is not allowed for host "files.slack.com" (its allowedHosts: slack.example)',
    );
  });

  it("allows one of its hosts over https to 443, and not over http or another port", () => {
    expect(boundCredentialRefusal(bound, new URL("https://slack.example/api/files.info"), false)).toBeNull();
    expect(boundCredentialRefusal(bound, new URL("http://slack.example/api/"), false)).toMatch(/only over https/);
    expect(boundCredentialRefusal(bound, new URL("https://slack.example:8443/api/"), false)).toMatch(/port 443/);
  });

  it("binds nothing when the value is plain config text", () => {
    expect(
      boundCredentialRefusal(unboundCredential("xoxb-plain"), new URL("https://anywhere.test/"), false),
    ).toBeNull();
  });
});

describe("guardedFetch with a carried credential", () => {
  it("rejects before any request when the URL is outside the credential's hosts", async () => {
    await expect(
      guardedFetch(
        "https://files.slack.com/files-pri/T/F/pic.png",
        { headers: { authorization: `Bearer ${bound.value}` } },
        policy,
        [bound],
      ),
    ).rejects.toThrow(
      'outbound request refused: Secret "SLACK_BOT" is not allowed for host "files.slack.com" (its allowedHosts: slack.example)',
    );
  });
});
