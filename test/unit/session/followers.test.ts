import { describe, expect, it } from "vitest";
import { Followers } from "../../../src/session/followers";

const decoder = new TextDecoder();

describe("SSE followers", () => {
  it("drop a follower whose client went away at the next write; the others go on", async () => {
    const followers = new Followers(
      () => ({ messages: [], hasMore: false }),
      async () => true,
    );
    const query = { sessionKey: "agent:main:main", includeTools: false };
    const stay = ((await followers.open(query)) as Response).body!.getReader();
    const leave = ((await followers.open(query)) as Response).body!.getReader();
    await stay.read();
    await leave.read();
    await leave.cancel();
    expect(followers.size).toBe(2);
    followers.appended([{ seq: 1, id: "m1", role: "user", createdAt: 0, json: '{"role":"user","content":"hi"}' }]);
    const next = decoder.decode((await stay.read()).value);
    expect(next).toContain("event: message");
    // The failed write to the client that left has settled by now: it is gone.
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(followers.size).toBe(1);
    followers.closeAll();
    expect(followers.size).toBe(0);
  });
  it("a follower that does not read holds up no other: they get every message, in order", async () => {
    const followers = new Followers(
      () => ({ messages: [], hasMore: false }),
      async () => true,
    );
    const query = { sessionKey: "agent:main:main", includeTools: false };
    await followers.open(query); // a follower whose client never reads its stream
    const fast = ((await followers.open(query)) as Response).body!.getReader();
    await fast.read(); // the first page
    const seqs: number[] = [];
    for (let seq = 1; seq <= 20; seq++) {
      followers.appended([
        { seq, id: `m${seq}`, role: "user", createdAt: 0, json: `{"role":"user","content":"m${seq}"}` },
      ]);
    }
    let text = "";
    while (seqs.length < 20) {
      const { value, done } = await Promise.race([
        fast.read(),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`stalled after ${seqs.length}`)), 1_000)),
      ]);
      if (done) break;
      text += decoder.decode(value);
      seqs.splice(0, seqs.length, ...[...text.matchAll(/"messageSeq":(\d+)/g)].map((m) => Number(m[1])));
    }
    expect(seqs).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(followers.size).toBe(2);
    followers.closeAll();
  });
});
