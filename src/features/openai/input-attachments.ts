import { invalidRequest } from "./errors";

/**
 * Images and files in OpenAI requests, as far as this service takes them: text files given as
 * base64 go into the run's system prompt inside OpenClaw's untrusted-content markers; images
 * (no runner here passes them on) and binary files are refused with a clear text; invalid
 * parts and remote URLs (never fetched here) are refused in OpenClaw's words.
 */

export const IMAGES_UNSUPPORTED_MESSAGE = "Images and files are not supported by this gateway yet.";
export const INVALID_IMAGE_URL_MESSAGE = "Invalid image_url content in `messages`.";
/** OpenClaw's answer to a remote source it will not fetch. */
const REMOTE_SOURCE_MESSAGE = "invalid request";
const BASE64_DATA_URI = /^data:[^;,]+;base64,[A-Za-z0-9+/=\s]+$/;
const TEXT_MEDIA_TYPE = /^(text\/|application\/(json|xml|x-yaml|yaml|csv|x-ndjson)\b)/;

/** A chat `image_url` part: invalid ones in OpenClaw's words, valid ones refused as unsupported. */
export function refuseImageUrl(part: { image_url?: unknown }): never {
  const image = part.image_url as { url?: unknown } | string | undefined;
  const url = typeof image === "string" ? image : image?.url;
  if (typeof url !== "string" || !BASE64_DATA_URI.test(url)) throw invalidRequest(INVALID_IMAGE_URL_MESSAGE);
  throw invalidRequest(IMAGES_UNSUPPORTED_MESSAGE);
}

type Source = { type?: unknown; media_type?: unknown; data?: unknown; filename?: unknown; url?: unknown };

/** A responses `input_image` / `input_file` part: the file block for the system prompt, or a refusal. */
export function fileBlock(part: { type: string; source?: unknown; filename?: unknown }): string {
  const source = (part.source ?? {}) as Source;
  if (source.type === "url") throw invalidRequest(REMOTE_SOURCE_MESSAGE);
  if (part.type !== "input_file" || source.type !== "base64" || typeof source.data !== "string") {
    throw invalidRequest(IMAGES_UNSUPPORTED_MESSAGE);
  }
  if (typeof source.media_type !== "string" || !TEXT_MEDIA_TYPE.test(source.media_type)) {
    throw invalidRequest(IMAGES_UNSUPPORTED_MESSAGE);
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(
      Uint8Array.from(atob(source.data), (c) => c.charCodeAt(0)),
    );
  } catch {
    throw invalidRequest(REMOTE_SOURCE_MESSAGE);
  }
  const name =
    typeof source.filename === "string" ? source.filename : typeof part.filename === "string" ? part.filename : "file";
  const id = [...crypto.getRandomValues(new Uint8Array(8))].map((b) => b.toString(16).padStart(2, "0")).join("");
  return [
    `<file name="${name.replaceAll('"', "'")}">`,
    "",
    `<<<EXTERNAL_UNTRUSTED_CONTENT id="${id}">>>`,
    "Source: External",
    "---",
    text,
    `<<<END_EXTERNAL_UNTRUSTED_CONTENT id="${id}">>>`,
    "</file>",
  ].join("\n");
}
