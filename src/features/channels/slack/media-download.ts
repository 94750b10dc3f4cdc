import { z } from "zod";
import type { MediaKind } from "../../../model/inbound-media";
import type { MediaRef, MediaSource } from "../inbound-media";
import type { SlackWebApi } from "./web-api";

/**
 * The files of a Slack `file_share` as the inbox fetches them (issue 46 item 2): each by its id,
 * located with `files.info` and downloaded from `url_private` with the bot token (the header
 * carries it: the source names it for redaction).
 */

const slackFile = z.looseObject({
  id: z.string(),
  name: z.string().optional(),
  mimetype: z.string().optional(),
  size: z.number().optional(),
});
const filesSchema = z.looseObject({ files: z.array(z.unknown()).optional() });

export function slackMediaRefs(event: unknown): MediaRef[] {
  const parsed = filesSchema.safeParse(event);
  if (!parsed.success) return [];
  return (parsed.data.files ?? []).flatMap((entry) => {
    const file = slackFile.safeParse(entry);
    if (!file.success) return [];
    const { id, name, mimetype, size } = file.data;
    return [
      {
        kind: kindOf(mimetype),
        fileId: id,
        ...(mimetype ? { mimeType: mimetype } : {}),
        ...(name ? { fileName: name } : {}),
        ...(size !== undefined ? { announcedBytes: size } : {}),
      },
    ];
  });
}

/** The app's files, located by `files.info`. */
export function slackMediaSource(api: SlackWebApi): MediaSource {
  return {
    credentials: api.credentials,
    carries: [api.boundCredential],
    locate: (ref) => api.fileDownload(ref.fileId),
  };
}

function kindOf(mime: string | undefined): MediaKind {
  const top = mime?.split("/")[0];
  return top === "image" ? "image" : top === "audio" ? "audio" : top === "video" ? "video" : "document";
}
