// The tenant object's ceiling: every event of a tenant passes through its one tenant object
// (index row + fan-out). How many events/s it indexes with nobody listening, how many it fans
// out to S sockets following one session, and the delivery lag at a fixed event rate.
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { closeAll, GatewayConn, gatewayUrl, messageText, openMany } from "../lib/gateway.mjs";
import { fmt, summarize } from "../lib/measure.mjs";

export const description =
  "ceiling: events/s one tenant object indexes and fans out; sockets it holds at a fixed event rate";

const SENDERS = 8;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Sends chat.inject from SENDERS sockets for `seconds` (at most `ratePerSecond` overall); counts ok answers. */
async function drive(senders, keyOf, seconds, { ratePerSecond = Number.POSITIVE_INFINITY, onSent } = {}) {
  const until = performance.now() + seconds * 1000;
  const gapMs = (1000 * senders.length) / ratePerSecond;
  let ok = 0;
  let errors = 0;
  let i = 0;
  await Promise.all(
    senders.map(async (conn) => {
      while (performance.now() < until) {
        const n = i++;
        const text = `ceiling ${n} ${randomUUID()}`;
        const t0 = performance.now();
        onSent?.(text, t0);
        try {
          await conn.call("chat.inject", { sessionKey: keyOf(n), message: text });
          ok++;
        } catch {
          errors++;
        }
        if (Number.isFinite(gapMs)) await sleep(Math.max(0, gapMs - (performance.now() - t0)));
      }
    }),
  );
  return { ok, errors, perSecond: ok / seconds };
}

/**
 * Appends over HTTP from `concurrency` workers for `seconds`, spread over `sessions` sessions
 * nobody follows: each session object sends its index updates to the tenant in the background.
 */
async function appendSpread(client, { runId, sessions, concurrency, seconds }) {
  const until = performance.now() + seconds * 1000;
  let ok = 0;
  let errors = 0;
  let i = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const n = i++;
        const key = `ceil-${runId}-http-${n % sessions}`; // as httpKey in run()
        try {
          await client.post(
            `/v1/sessions/${encodeURIComponent(key)}/messages`,
            { role: "user", content: `append ${n}` },
            { expect: 201 },
          );
          ok++;
        } catch {
          errors++;
        }
      }
    }),
  );
  return { ok, errors, perSecond: ok / seconds };
}

export async function run(ctx) {
  const { log, signal, quick } = ctx;
  const url = gatewayUrl(ctx.baseUrl);
  const seconds = quick ? 3 : 8;
  const runId = randomUUID().slice(0, 8);
  const rows = [];
  const senders = await Promise.all(Array.from({ length: SENDERS }, () => GatewayConn.open(url, { signal })));
  try {
    // 1. Index only: events spread over 64 sessions, nobody subscribed.
    const spread = (n) => `agent:main:ceil-${runId}-idx-${n % 64}`;
    for (let s = 0; s < 64; s++) await senders[0].call("sessions.patch", { key: spread(s) });
    log(`index only: ${seconds} s of chat.inject over 64 sessions from ${SENDERS} sockets`);
    const idx = await drive(senders, spread, seconds);
    rows.push({
      name: "events indexed, nobody listening",
      value: idx.perSecond,
      unit: "events/s",
      note: `${idx.ok} chat.inject over 64 sessions, ${SENDERS} sockets, ${seconds} s`,
      errors: idx.errors,
    });

    // 2. Fan-out: S sockets follow one session; events at full speed, then at a fixed rate.
    for (const sockets of quick ? [100] : [100, 1000, 3000]) {
      signal?.throwIfAborted();
      const key = `agent:main:ceil-${runId}-fan-${sockets}`;
      await senders[0].call("sessions.patch", { key });
      const opened = await openMany(url, { count: sockets, concurrency: 32, signal, maxSeconds: 180 });
      const subs = opened.conns;
      try {
        let next = 0;
        await Promise.all(
          Array.from({ length: 64 }, async () => {
            while (next < subs.length) await subs[next++].call("sessions.messages.subscribe", { key });
          }),
        );
        let frames = 0;
        const sentAt = new Map();
        const lags = [];
        const offs = subs.map((c, index) =>
          c.onEvent((frame) => {
            if (frame.event !== "session.message") return;
            frames++;
            // The lag of one subscriber (the last opened) stands for everyone's.
            if (index === subs.length - 1) {
              const t0 = sentAt.get(messageText(frame.payload?.message));
              if (t0 !== undefined) lags.push(performance.now() - t0);
            }
          }),
        );
        const onSent = (text, t0) => sentAt.set(text, t0);
        log(`fan-out to ${sockets}: ${seconds} s at full speed`);
        const t0 = performance.now();
        const full = await drive(senders, () => key, seconds, { onSent });
        await sleep(1000);
        const framesPerSecond = frames / ((performance.now() - t0) / 1000);
        const fullLag = summarize(lags);
        rows.push({
          name: `fan-out, ${fmt(sockets)} sockets following one session: events`,
          value: full.perSecond,
          unit: "events/s",
          note: `${fmt(framesPerSecond)} frames/s delivered; lag p50 ${fmt(fullLag.p50)} ms, p99 ${fmt(fullLag.p99)} ms`,
          errors: full.errors + opened.errors,
        });
        // A fixed rate of 20 events/s (a busy agent streaming): does the lag stay low?
        lags.length = 0;
        frames = 0;
        const fixed = await drive(senders, () => key, seconds, { onSent, ratePerSecond: 20 });
        await sleep(1000);
        const fixedLag = summarize(lags);
        rows.push({
          name: `fan-out, ${fmt(sockets)} sockets at 20 events/s: lag p50`,
          value: fixedLag.p50,
          unit: "ms",
          note: `p99 ${fmt(fixedLag.p99)} ms; ${fmt(fixed.perSecond)} events/s sent, ${fmt(fixed.perSecond * sockets)} frames/s`,
          errors: fixed.errors,
        });
        for (const off of offs) off();
      } finally {
        await closeAll(subs);
      }
    }
  } finally {
    await closeAll(senders);
  }
  // 3. Index updates from busy sessions nobody follows (every socket closed): HTTP appends over
  // 64 sessions, each session object coalescing its updates to the tenant (publish-window.ts).
  // Last, so that what it leaves behind (64 more session databases) weighs on no other row.
  // Created first: a create is sent to the tenant at once, and is not what this row measures.
  const httpKey = (n) => `ceil-${runId}-http-${n % 64}`;
  for (let s = 0; s < 64; s += 16) {
    await Promise.all(
      Array.from({ length: 16 }, (_, j) =>
        ctx.client.post(
          `/v1/sessions/${encodeURIComponent(httpKey(s + j))}/messages`,
          { role: "user", content: "created" },
          { expect: 201 },
        ),
      ),
    );
  }
  log(`unfollowed appends: ${seconds} s of HTTP appends over 64 sessions, 16 at a time`);
  const unfollowed = await appendSpread(ctx.client, { runId, sessions: 64, concurrency: 16, seconds });
  rows.push({
    name: "appends to 64 sessions nobody follows (HTTP)",
    value: unfollowed.perSecond,
    unit: "appends/s",
    note: `${unfollowed.ok} POST …/messages, 16 at a time, ${seconds} s; the tenant indexes in the background`,
    errors: unfollowed.errors,
  });
  return rows;
}
