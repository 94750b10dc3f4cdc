import { expect, inject } from "vitest";
import { slackSignature } from "../../../src/features/channels/slack/signature";
import { call, freshTenant, type TestTenant } from "./helpers";

/** Shared by the workerd tests that talk to a tenant's Slack app through the test peer's Web API (`/slack/api/`). */

/** A fresh tenant whose Slack app (HTTP mode) calls the test peer; `slack` adds to or replaces the config keys. */
export async function slackPeerTenant(label: string, signingSecret: string, slack: Record<string, unknown>) {
  const t = await freshTenant(label);
  const put = await t.config({
    channels: {
      slack: {
        enabled: true,
        mode: "http",
        botToken: `xoxb-${label}-0000-fake`,
        signingSecret,
        apiRoot: `http://127.0.0.1:${inject("peerPort")}/slack/api/`,
        ...slack,
      },
    },
  });
  expect(put.status, put.text).toBe(200);
  return t;
}

/** Posts an `event_callback` signed as Slack signs it; the Request URL must answer 200. */
export async function postSlackEvent(
  t: TestTenant,
  signingSecret: string,
  event: Record<string, unknown>,
  eventId: string,
): Promise<void> {
  const body = JSON.stringify({ type: "event_callback", team_id: "T0TEST", event_id: eventId, event });
  const at = String(Math.floor(Date.now() / 1000));
  const res = await call(`${t.prefix}/slack/events`, {
    method: "POST",
    token: null,
    headers: {
      "content-type": "application/json",
      "x-slack-request-timestamp": at,
      "x-slack-signature": await slackSignature(signingSecret, at, body),
    },
    body,
  });
  expect(res.status).toBe(200);
}
