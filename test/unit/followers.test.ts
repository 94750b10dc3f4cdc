import { describe, expect, it } from "vitest";
import { Followers } from "../../src/session/followers";

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
});
