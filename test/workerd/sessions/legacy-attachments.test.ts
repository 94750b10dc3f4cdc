import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { freshTenant } from "../support/helpers";

/**
 * Files a session stored before its attachment prefix escaped `/` and `%` (review of issue 46,
 * finding 8): they sit under `<tenant>/<key>/` as the key was. The session's export carries them
 * and its deletion deletes them; another session's files under the same old prefix (a longer
 * key's) stay, in both. The routes, session objects and bucket are real.
 */
const UUID = "0b6f0a57-2d1c-4b8e-9a43-5f0e7c1d2b3a";

async function keysUnder(prefix: string): Promise<string[]> {
  return (await env.ATTACHMENTS.list({ prefix })).objects.map((o) => o.key).sort();
}

describe("a session's files under its prefix from before the escaping", () => {
  it("are exported and deleted with it; a longer key's files there are neither, nor by a shorter key's deletion", async () => {
    const t = await freshTenant("legacy-prefix");
    const key = "agent:main:a/b";
    const longer = "agent:main:a/b/c";
    await t.append(key, { role: "user", content: "a photo, long ago" });
    await t.append(longer, { role: "user", content: "another photo" });
    const old = `${t.id}/${key}/`;
    const own = [`${old}media/inbound/telegram-1-0.jpg`, `${old}.openclaw/attachments/${UUID}/notes.txt`];
    // The longer key's own file, stored under ITS old prefix, which lies under ours.
    const others = [`${t.id}/${longer}/media/inbound/telegram-2-0.jpg`];
    for (const object of [...own, ...others]) await env.ATTACHMENTS.put(object, new TextEncoder().encode(object));

    const exported = await t.call("/v1/export");
    expect(exported.status, exported.text).toBe(200);
    const files = exported.text
      .trim()
      .split("\n")
      .map((line: string) => JSON.parse(line))
      .filter((line: { type: string }) => line.type === "file")
      .map((line: { key: string; path: string }) => `${line.key} ${line.path}`)
      .sort();
    expect(files).toEqual([
      `${key} .openclaw/attachments/${UUID}/notes.txt`,
      `${key} media/inbound/telegram-1-0.jpg`,
      `${longer} media/inbound/telegram-2-0.jpg`,
    ]);

    // `agent:main:a`'s prefix today is `<tenant>/agent:main:a/`, under which the old files of
    // `agent:main:a/…` lie: its deletion takes its own folders' files and leaves theirs.
    const shorter = "agent:main:a";
    await t.append(shorter, { role: "user", content: "a photo" });
    const shorterOwn = `${t.id}/${shorter}/media/inbound/telegram-3-0.jpg`;
    await env.ATTACHMENTS.put(shorterOwn, "x");
    expect((await t.call(`/v1/sessions/${encodeURIComponent(shorter)}`, { method: "DELETE" })).status).toBe(200);
    expect(await keysUnder(`${t.id}/`)).toEqual([...own, ...others].sort());

    const deleted = await t.call(`/v1/sessions/${encodeURIComponent(key)}`, { method: "DELETE" });
    expect(deleted.status, deleted.text).toBe(200);
    expect(await keysUnder(`${t.id}/`)).toEqual(others);
    // The longer key's deletion takes its own.
    expect((await t.call(`/v1/sessions/${encodeURIComponent(longer)}`, { method: "DELETE" })).status).toBe(200);
    expect(await keysUnder(`${t.id}/`)).toEqual([]);
  });
});
