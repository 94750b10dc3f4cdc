import { z } from "zod";
import { slackInboundText } from "./inbound-text";

/**
 * The text a Slack `file_share` brings to its turn while the files themselves are not yet fetched
 * (issue 46 item 2): one description line per shared file (`[media: image pic.png 640×480
 * image/png 68 bytes]`), then the message text. Without this a file shared with no text was
 * dropped as "no text". Pure: the event comes in, text goes out.
 */

const slackFile = z.looseObject({
  name: z.string().optional(),
  mimetype: z.string().optional(),
  size: z.number().optional(),
  original_w: z.number().optional(),
  original_h: z.number().optional(),
});
/** The `files` of a Slack message event this service reads (unknown keys kept). */
const slackFilesSchema = z.looseObject({ files: z.array(slackFile).optional() });

/** One description line per file of the event; empty when none. */
export function slackMediaLines(event: unknown): string[] {
  const parsed = slackFilesSchema.safeParse(event);
  if (!parsed.success) return [];
  return (parsed.data.files ?? []).map((file) => {
    const kind = kindOf(file.mimetype);
    const size = file.original_w && file.original_h ? `${file.original_w}×${file.original_h}` : undefined;
    const bytes = file.size !== undefined ? `${file.size} bytes` : undefined;
    const facts = [kind, file.name, size, file.mimetype, bytes].filter((f): f is string => !!f);
    return `[media: ${facts.join(" ")}]`;
  });
}

/** The turn's text: the file lines, then the message's text as the model reads it (either may be absent). */
export function slackTurnText(event: { text?: string }): string {
  return [...slackMediaLines(event), slackInboundText(event.text ?? "")]
    .filter((part) => part.trim() !== "")
    .join("\n");
}

function kindOf(mime: string | undefined): string {
  const top = mime?.split("/")[0];
  return top === "image" || top === "audio" || top === "video" ? top : "file";
}
