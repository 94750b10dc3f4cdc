import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { append, call, history, user } from "../support/helpers";

/** Generated hostile inputs: the service answers 4xx (never 5xx) and writes nothing. */

const jsonish = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(fc.string(), fc.integer(), fc.constant(null)), { maxKeys: 4 }),
);

const hostileMessage = fc.oneof(
  fc.record({ role: jsonish, content: jsonish }, { requiredKeys: [] }),
  fc.record({ role: fc.constantFrom("user", "assistant"), content: fc.array(jsonish, { maxLength: 3 }) }),
  fc.record({ role: fc.constant("user"), content: fc.string(), timestamp: jsonish }),
  fc.record({ role: fc.constant("user"), content: fc.string(), provenance: jsonish }),
  fc.record({ role: fc.constant("user"), content: fc.string(), deliveryContext: jsonish }),
  jsonish,
);

const hostileKey = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom(
    "agent:",
    "agent::x",
    "agent:main",
    "agent:B@d!:x",
    " ",
    "%",
    "%ZZ",
    "a".repeat(600),
    "agent:main:\u0000x",
  ),
);

describe("hostile HTTP input", () => {
  it("answers 4xx to a few hundred malformed ingest bodies and appends nothing but what it accepted", async () => {
    await append("fortress", user("the only message"));
    const before = (await history("fortress")).text;
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(hostileMessage, async (body) => {
        const res = await call("/v1/sessions/fortress/messages", { method: "POST", body: JSON.stringify(body) });
        // A well-formed message is allowed through; anything else must be a 4xx.
        if (res.status === 201) {
          accepted++;
          return;
        }
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(res.status).toBeLessThan(500);
        expect(res.data).toMatchObject({ ok: false, error: { type: expect.any(String), message: expect.any(String) } });
      }),
      { numRuns: 250 },
    );
    const after = await history("fortress");
    // Exactly the accepted bodies were appended (one message each); the original is untouched.
    expect(after.data.messages.length).toBe(1 + accepted);
    expect(after.data.messages[0].content).toBe("the only message");
    if (accepted === 0) expect(after.text).toBe(before);
  });

  it("never answers 5xx for hostile keys, cursors and limits", async () => {
    await fc.assert(
      fc.asyncProperty(
        hostileKey,
        fc.string({ maxLength: 12 }),
        fc.string({ maxLength: 12 }),
        async (key, limit, cursor) => {
          const encoded = encodeURIComponent(key);
          const read = await call(
            `/sessions/${encoded}/history?limit=${encodeURIComponent(limit)}&cursor=${encodeURIComponent(cursor)}`,
          );
          expect(read.status, `history ${key}`).toBeLessThan(500);
          const write = await call(`/v1/sessions/${encoded}/messages`, {
            method: "POST",
            json: { role: "user", content: "k" },
          });
          expect(write.status, `append ${key}`).toBeLessThan(500);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("answers 4xx for raw garbage bodies", async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 64 }), async (bytes) => {
        const res = await call("/v1/sessions/garbage/messages", { method: "POST", body: bytes });
        expect(res.status).toBeLessThan(500);
      }),
      { numRuns: 100 },
    );
    expect((await history("garbage")).status).toBe(404);
  });
});
