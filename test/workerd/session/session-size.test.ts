import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sessionObjectName } from "../../../src/stubs";
import { freshTenant, user } from "../support/helpers";

/** A session keeps the byte size of its messages as they are written: each message row carries its transcript's bytes through it (SessionStore.messageBytes). */

describe("a session's message bytes", () => {
  it("are counted as messages are written, over every transcript, equal to the bodies' UTF-8 bytes", async () => {
    const t = await freshTenant("size");
    const key = "agent:main:sized";
    expect((await t.append(key, user("plain text"))).status).toBe(201);
    expect((await t.append(key, user("é and 🎉 take more than one byte"))).status).toBe(201);
    // A reset starts a new transcript; the old one stays in the object and still counts.
    expect((await t.call(`/v1/sessions/${encodeURIComponent(key)}/reset`, { method: "POST", json: {} })).status).toBe(
      200,
    );
    expect((await t.append(key, user("after the reset"))).status).toBe(201);
    const sizes = await runInDurableObject(env.SESSIONS.getByName(sessionObjectName(t.id, key)), (_instance, state) => {
      const sql = state.storage.sql;
      return {
        kept: sql
          .exec<{ n: number }>(
            "SELECT sum((SELECT bytes_through FROM messages m WHERE m.session_id = t.session_id ORDER BY seq DESC LIMIT 1)) AS n FROM transcripts t",
          )
          .one().n,
        transcripts: sql.exec<{ n: number }>("SELECT count(*) AS n FROM transcripts").one().n,
        measured: sql.exec<{ n: number }>("SELECT sum(length(CAST(body AS BLOB))) AS n FROM messages").one().n,
      };
    });
    expect(sizes.transcripts).toBe(2);
    expect(sizes.measured).toBeGreaterThan(0);
    expect(sizes.kept).toBe(sizes.measured);
  });
});
