import { afterEach, describe, expect, inject, it } from "vitest";
import { call, freshTenant, issueToken } from "../support/helpers";
import { GatewayClient } from "../support/ws-helpers";

/**
 * Channels › Set up in the Control UI (issue 47): OpenClaw's `wizard.*` channels flow over the
 * gateway WebSocket, its steps from each platform's descriptor. The config write, the secret
 * store and the Bot API call are real (the Bot API is the test peer's `/telegram`).
 */

const peer = `http://127.0.0.1:${inject("peerPort")}`;
const open: GatewayClient[] = [];
afterEach(() => {
  for (const client of open.splice(0)) client.close();
});

async function connected(label: string, config?: Record<string, unknown>) {
  const tenant = await freshTenant(label);
  if (config) expect((await tenant.config(config)).status).toBe(200);
  const client = await GatewayClient.connect({ path: tenant.prefix, token: tenant.token });
  open.push(client);
  return { tenant, client };
}

/** Answers the current step and returns the wizard's answer (`payload`). */
async function answer(client: GatewayClient, sessionId: string, step: { id: string }, value?: unknown) {
  const res = await client.request("wizard.next", {
    sessionId,
    answer: { stepId: step.id, ...(value === undefined ? {} : { value }) },
  });
  expect(res.ok, JSON.stringify(res.error)).toBe(true);
  return res.payload;
}

describe("wizard.* (Channels › Set up)", () => {
  it("walks Telegram: token refused then accepted, config and secrets written, webhook registered, card configured", async () => {
    const token = `7${Date.now() % 1_000_000}:AAF-wizard_${crypto.randomUUID().slice(0, 8)}`;
    const { tenant, client } = await connected("wiz-tg", { channels: { telegram: { apiRoot: `${peer}/telegram` } } });
    const start = await client.request("wizard.start", { flow: "channels", channel: "telegram" });
    expect(start.ok, JSON.stringify(start.error)).toBe(true);
    const { sessionId } = start.payload;
    expect(start.payload).toMatchObject({
      done: false,
      status: "running",
      step: { type: "note", title: "Channel setup" },
    });
    const help = await answer(client, sessionId, start.payload.step);
    expect(help.step).toMatchObject({ type: "note", title: "Telegram bot token" });
    expect(help.step.message).toContain("@BotFather");
    const prompt = await answer(client, sessionId, help.step);
    expect(prompt.step).toMatchObject({ type: "text", message: "Enter Telegram bot token", sensitive: true });

    // A wrong value: OpenClaw's answer is the same step again with the validation error.
    const refused = await answer(client, sessionId, prompt.step, "not a token");
    expect(refused).toMatchObject({ done: false, error: "Telegram bot tokens look like 123456:ABC..." });
    expect(refused.step.id).toBe(prompt.step.id);
    const empty = await answer(client, sessionId, prompt.step, "  ");
    expect(empty.error).toBe("Required");

    const policies = await answer(client, sessionId, prompt.step, token);
    expect(policies.step).toMatchObject({
      type: "confirm",
      message: "Configure DM access policies now? (default: pairing)",
      initialValue: false,
    });
    const webhook = await answer(client, sessionId, policies.step, false);
    expect(webhook.step).toMatchObject({ type: "note", title: "Telegram webhook" });
    const url = `/t/${tenant.id}/telegram-webhook`;
    expect(webhook.step.message).toMatch(new RegExp(`^Registered https?://[^ ]+${url} with Telegram`));
    const outro = await answer(client, sessionId, webhook.step);
    expect(outro.step).toMatchObject({ type: "note", title: "Done", message: "Channels updated." });
    const done = await answer(client, sessionId, outro.step);
    expect(done).toEqual({
      done: true,
      status: "done",
      channels: ["telegram"],
      accounts: [{ channel: "telegram", accountId: "default" }],
    });

    // Telegram got the URL and a generated secret; the config holds references, never the values.
    const recorded = (await (await fetch(`${peer}/control/recorded?path=${encodeURIComponent(token)}`)).json()) as {
      body: { url: string; secret_token: string };
    }[];
    expect(recorded).toHaveLength(1);
    expect(recorded[0]!.body.url.endsWith(url)).toBe(true);
    expect(recorded[0]!.body.secret_token).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    const stored = (await tenant.call("/v1/config")).data.config.channels.telegram;
    expect(stored).toMatchObject({ enabled: true, apiRoot: `${peer}/telegram` });
    expect(stored.botToken).toMatchObject({ source: "store" });
    expect(stored.webhookSecret).toMatchObject({ source: "store" });
    const everything = JSON.stringify([client.frames, stored]);
    expect(everything).not.toContain(token);
    expect(everything).not.toContain(recorded[0]!.body.secret_token);

    // The card shows configured; the ended wizard is gone.
    const status = await client.request("channels.status", {});
    expect(status.payload.channels.telegram).toMatchObject({ configured: true, running: true });
    const gone = await client.request("wizard.status", { sessionId });
    expect(gone.error).toMatchObject({ message: "wizard not found", details: { code: "WIZARD_NOT_FOUND" } });
  });

  it("cancel ends the wizard and writes nothing (the answers given are dropped)", async () => {
    const { tenant, client } = await connected("wiz-cancel");
    const start = await client.request("wizard.start", { flow: "channels", channel: "slack" });
    const { sessionId } = start.payload;
    const help = await answer(client, sessionId, start.payload.step);
    const botToken = await answer(client, sessionId, help.step);
    expect(botToken.step).toMatchObject({ type: "text", message: "Enter Slack bot token (xoxb-...)", sensitive: true });
    const signing = await answer(client, sessionId, botToken.step, "xoxb-1-2-cancelled");
    expect(signing.step).toMatchObject({ type: "text", message: "Enter Slack signing secret", sensitive: true });
    expect((await client.request("wizard.status", { sessionId })).payload).toEqual({ status: "running" });
    const cancelled = await client.request("wizard.cancel", { sessionId });
    expect(cancelled.payload).toEqual({ status: "cancelled", error: "cancelled" });
    expect((await tenant.call("/v1/config")).data.config.channels?.slack).toBeUndefined();
    const after = await client.request("wizard.next", { sessionId, answer: { stepId: signing.step.id, value: "x" } });
    expect(after.error.details).toEqual({ code: "WIZARD_NOT_FOUND" });
  });

  it("Slack and WhatsApp end with the URL to paste; the config schema's own refusal is the step's error", async () => {
    const { tenant, client } = await connected("wiz-paste");
    const walk = async (channel: string, values: unknown[]) => {
      const start = await client.request("wizard.start", { flow: "channels", channel });
      let result = await answer(client, start.payload.sessionId, start.payload.step);
      result = await answer(client, start.payload.sessionId, result.step);
      for (const value of values) result = await answer(client, start.payload.sessionId, result.step, value);
      return { sessionId: start.payload.sessionId, result };
    };
    const slack = await walk("slack", ["xoxb-1-2-abc", "slack-signing-secret", false]);
    expect(slack.result.step.title).toBe("Slack webhook");
    expect(slack.result.step.message).toContain(`/t/${tenant.id}/slack/events\nPaste it as the Request URL`);
    const whatsapp = await walk("whatsapp", ["not digits"]);
    expect(whatsapp.result.error).toBe("must be the phone number id (digits)");
    let result = whatsapp.result;
    for (const value of ["1234567890", "wa-access-token", "wa-app-secret", "wa-verify-token", true])
      result = await answer(client, whatsapp.sessionId, result.step, value);
    // OpenClaw's DM policy question, said yes to: its select, a value not listed refused.
    expect(result.step).toMatchObject({ type: "select", message: "WhatsApp DM policy" });
    expect(result.step.options.map((option: { value: string }) => option.value)).toEqual([
      "pairing",
      "allowlist",
      "open",
      "disabled",
    ]);
    expect((await answer(client, whatsapp.sessionId, result.step, "everyone")).error).toBe(
      "Select one of the policies listed.",
    );
    result = await answer(client, whatsapp.sessionId, result.step, "allowlist");
    expect(result.step.message).toContain(`/t/${tenant.id}/whatsapp/webhook\nPaste it as the Callback URL`);
    // A platform whose descriptor declares no steps (Teams): its required keys and secrets, its URL.
    const teams = await walk("msteams", ["00000000-aaaa-bbbb-cccc-000000000001", "teams-app-password", false]);
    expect(teams.result.step.message).toContain(`/t/${tenant.id}/api/messages\n`);
    const channels = (await tenant.call("/v1/config")).data.config.channels;
    expect(channels.msteams.appPassword).toMatchObject({ source: "store" });
    expect(JSON.stringify(client.frames)).not.toMatch(
      /wa-access-token|wa-app-secret|wa-verify-token|slack-signing|teams-app-password/,
    );
    expect(channels.whatsapp).toMatchObject({ enabled: true, phoneNumberId: "1234567890", dmPolicy: "allowlist" });
    expect(channels.slack.dmPolicy).toBeUndefined();
    expect(channels.whatsapp.verifyToken).toMatchObject({ source: "store" });
    expect(channels.slack.signingSecret).toMatchObject({ source: "store" });
  });

  it("without a channel asks which one (the platforms served); an unserved card's Set up says so", async () => {
    const { client } = await connected("wiz-browse");
    const start = await client.request("wizard.start", { flow: "channels" });
    const pick = await answer(client, start.payload.sessionId, start.payload.step);
    expect(pick.step.type).toBe("select");
    expect(pick.step.options.map((option: { value: string }) => option.value)).toEqual(
      expect.arrayContaining(["telegram", "slack", "whatsapp"]),
    );
    expect((await answer(client, start.payload.sessionId, pick.step, "discord")).error).toBe(
      "Select one of the channels listed.",
    );
    const help = await answer(client, start.payload.sessionId, pick.step, "slack");
    expect(help.step.title).toBe("Slack bot token");

    // The page's cards: the served platforms, then its fixed catalogue's others marked unserved.
    const status = await client.request("channels.status", {});
    const meta = status.payload.channelMeta as { id: string; detailLabel?: string }[];
    expect(meta.slice(0, 3).map((card) => card.id)).toEqual(["telegram", "slack", "whatsapp"]);
    expect(meta.find((card) => card.id === "discord")).toEqual({
      id: "discord",
      label: "Discord",
      detailLabel: "Not available on this service",
    });
    const discord = await client.request("wizard.start", { flow: "channels", channel: "discord" });
    expect(discord.payload).toMatchObject({ done: true, status: "error" });
    expect(discord.payload.error).toMatch(
      /^Discord is not available on this service \(served: Telegram, Slack, WhatsApp/,
    );
  });

  it("is refused to a token without operator.admin", async () => {
    const tenant = await freshTenant("wiz-scope");
    const { token } = await issueToken(tenant.id, ["operator.read", "operator.write"]);
    const client = await GatewayClient.connect({ path: tenant.prefix, token });
    open.push(client);
    const refused = await client.request("wizard.start", { flow: "channels", channel: "telegram" });
    expect(refused.ok).toBe(false);
    expect(refused.error.message).toBe("missing scope: operator.admin");
    expect((await call(`${tenant.prefix}/v1/config`, { token: tenant.token })).data.config.channels).toBeUndefined();
  });
});
