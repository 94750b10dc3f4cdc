import { describe, expect, it } from "vitest";
import { slackInboundText } from "../../../src/features/channels/slack/inbound-text";
import { decideSlack } from "../../../src/features/channels/slack/routing";
import type { SlackEnvelope } from "../../../src/protocol/channels";

/** Slack's inbound markup as the model reads it (issue 46, 8): links and entities unescaped, mentions kept. */

describe("slackInboundText", () => {
  it("an autolink is its URL; a labelled link is `label (url)`; Slack's entities are the typed characters", () => {
    // The recorded message of chat46-slack (dm-hello).
    expect(
      slackInboundText("hello <@U0CAROL> see <https://example.com/a?b=1&amp;c=2|the link> and <https://example.com/x>"),
    ).toBe("hello <@U0CAROL> see the link (https://example.com/a?b=1&c=2) and https://example.com/x");
    expect(slackInboundText("a &lt;b&gt; &amp;&amp; c")).toBe("a <b> && c");
    // `&amp;lt;` is the user's literal `&lt;`, not a `<`.
    expect(slackInboundText("write &amp;lt; in HTML")).toBe("write &lt; in HTML");
  });

  it("a URL Slack linked from what the user typed is given once", () => {
    expect(slackInboundText("see <http://www.foo.com|www.foo.com>")).toBe("see http://www.foo.com");
    expect(slackInboundText("mail <mailto:bob@example.com|bob@example.com>")).toBe("mail mailto:bob@example.com");
    expect(slackInboundText("<https://example.com|https://example.com>")).toBe("https://example.com");
  });

  it("mentions of users, channels and groups stay Slack's markup", () => {
    const text = "<@U0BOT> ask <@U0CAROL|carol> in <#C0OPS|ops> <!here> <!subteam^S0DEV|@devs>";
    expect(slackInboundText(text)).toBe(text);
  });

  it("text without markup is unchanged", () => {
    expect(slackInboundText("plain words, 1 < 2 is not markup")).toBe("plain words, 1 < 2 is not markup");
    expect(slackInboundText("")).toBe("");
  });
});

describe("a Slack turn's text", () => {
  const envelope = (text: string): SlackEnvelope => ({
    type: "event_callback",
    event_id: "Ev0TEXT",
    team_id: "T0TEST",
    event: { type: "message", channel: "C0OPEN", channel_type: "channel", user: "U0ALICE", ts: "1.000100", text },
  });
  const decide = (text: string) =>
    decideSlack({
      envelope: envelope(text),
      slack: { groupPolicy: "open", requireMention: true },
      config: {},
      agentId: "main",
      bot: { userId: "U0BOT" },
      approved: new Set(),
    });

  it("reaches the model unescaped; the bot's mention still counts", () => {
    const decision = decide("<@U0BOT> read <https://example.com/?q=1&amp;r=2>");
    expect(decision.action).toBe("turn");
    if (decision.action !== "turn") return;
    expect(decision.turn.text).toBe("<@U0BOT> read https://example.com/?q=1&r=2");
    expect(decision.turn.envelope?.mentionedUserIds).toEqual(["U0BOT"]);
  });

  it("a mention the user typed as text (escaped by Slack) is not the bot's mention", () => {
    expect(decide("&lt;@U0BOT&gt; is how you mention it")).toMatchObject({ action: "ignore", reason: "no mention" });
  });
});
