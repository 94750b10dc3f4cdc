import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { freshTenant, type TestTenant, until, user } from "../support/helpers";
import { peerTelegramChannel, postTelegramDm } from "../support/telegram-helpers";
import { GatewayClient } from "../support/ws-helpers";

/**
 * What a turn writes (issue 48: rows written are ~97% of a turn's dollars). The session's and
 * the tenant's rows of one echo turn in an existing session, from the meter's ledger: the cuts
 * (timers without a due index, partial run indexes; messages one row each, the entry written
 * once per transaction, one progress row per session in the tenant) hold it to the figure
 * docs/benchmarks.md reports. A Telegram DM to its reply (the inbox's rows too) is held the same way.
 */

const today = () => new Date().toISOString().slice(0, 10);

type Rows = { session: number; tenant: number; inbox: number };

/** Rows written so far today per class, of the session, the tenant and the channel inbox object. */
async function rowsWritten(tenantId: string): Promise<Rows> {
  const rows = await (env as unknown as Env).LEDGER.getByName(tenantId).unitsBetween(today(), today());
  const of = (objectClass: string) => rows.find((row) => row.objectClass === objectClass)?.units.rowsWritten ?? 0;
  return { session: of("SessionObject"), tenant: of("TenantObject"), inbox: of("ChannelInboxObject") };
}

/**
 * The rows once every hand-off of the work before has landed: unchanged for 2 s, longer than
 * the session's retry alarm that writes a handed-off index row (a second or two after the turn).
 */
async function settled(tenantId: string) {
  let last = JSON.stringify(await rowsWritten(tenantId));
  let quiet = 0;
  for (let i = 0; i < 150; i++) {
    await new Promise((r) => setTimeout(r, 400));
    const now = JSON.stringify(await rowsWritten(tenantId));
    quiet = now === last ? quiet + 1 : 0;
    if (quiet === 5) return JSON.parse(now) as Rows;
    last = now;
  }
  throw new Error("the units never settled");
}

async function turn(t: TestTenant, text: string) {
  const res = await t.append("agent:main:rows", user(text, { run: true }));
  expect(res.status, res.text).toBe(201);
  const run = await t.call(`/v1/runs/${res.data.runId}?wait=10`);
  expect(run.data.run.status).toBe("ok");
}

describe("rows written per turn", () => {
  it("an echo turn in an existing session writes at most 13 session rows and 6 tenant rows, the index update and its acknowledgement included (19 and 7 before the second cut)", async () => {
    const t = await freshTenant("rows");
    await turn(t, "warm");
    const before = await settled(t.id);
    await turn(t, "measured");
    const after = await settled(t.id);
    const session = after.session - before.session;
    const tenant = after.tenant - before.tenant;
    console.log(`rows written per turn: session ${session}, tenant ${tenant}`);
    expect(session).toBeLessThanOrEqual(13);
    expect(tenant).toBeLessThanOrEqual(6);
  });

  it("a gateway chat.send turn (admitted held, released once answered) writes at most 15 session rows: the hold's fallback is the run's watchdog timer, re-armed at the start (16 before)", async () => {
    const t = await freshTenant("rows-held");
    const client = await GatewayClient.connect({ path: t.prefix, token: t.token });
    try {
      const send = async (text: string) => {
        const runId = crypto.randomUUID();
        const res = await client.request("chat.send", {
          sessionKey: "agent:main:held",
          message: text,
          idempotencyKey: runId,
        });
        expect(res.ok, JSON.stringify(res.error)).toBe(true);
        await client.waitFor((f) => f.event === "chat" && f.payload.runId === runId && f.payload.state === "final");
      };
      await send("warm");
      const before = await settled(t.id);
      await send("measured");
      const after = await settled(t.id);
      const session = after.session - before.session;
      console.log(`rows written per gateway turn: session ${session}, tenant ${after.tenant - before.tenant}`);
      expect(session).toBeLessThanOrEqual(15);
    } finally {
      client.close();
    }
  });
});

const TG_SECRET = "tg-webhook-secret-rows-0123456";
let nextUpdateId = 960_000;

/** One Telegram DM through the webhook, answered: its reply delivered by the session's outbox. */
async function telegramDm(t: TestTenant, text: string, replies: number) {
  await postTelegramDm(t, TG_SECRET, { updateId: nextUpdateId++, chatId: 555600 }, { text });
  await until(
    async () => {
      const sent = await t.call(`/v1/sessions/${encodeURIComponent("agent:main:main")}/deliveries`);
      return ((sent.data.deliveries ?? []) as Array<{ status: string }>).filter((d) => d.status === "delivered");
    },
    (delivered) => delivered.length >= replies,
  );
}

describe("rows written per Telegram DM", () => {
  it("a DM to its reply (debounced by default, typing, the reply's delivery) writes at most 34 session + inbox + tenant rows (44 before the inbox's cut)", async () => {
    const t = await freshTenant("rows-dm");
    // The peer's getMe answers bot id 42: a token of that id keeps the identity (a real bot's
    // token starts with its id), so no DM refetches and rewrites it.
    const put = await t.config({ channels: { telegram: peerTelegramChannel(TG_SECRET, { botToken: "42:fake" }) } });
    expect(put.status, put.text).toBe(200);
    await telegramDm(t, "warm", 1);
    const before = await settled(t.id);
    await telegramDm(t, "measured", 2);
    const after = await settled(t.id);
    const session = after.session - before.session;
    const inbox = after.inbox - before.inbox;
    const tenant = after.tenant - before.tenant;
    console.log(`rows written per Telegram DM: session ${session}, inbox ${inbox}, tenant ${tenant}`);
    expect(session + inbox + tenant).toBeLessThanOrEqual(34);
  });
});
