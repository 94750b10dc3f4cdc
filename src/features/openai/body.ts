import type { Context } from "hono";
import type { z } from "zod";
import { BODY_TOO_LARGE, readBoundedBody } from "../../util/bounded-body";
import { invalidRequest, OpenAiError, PAYLOAD_TOO_LARGE, schemaMessage } from "./errors";

/** OpenClaw's body limits: 20 MiB for chat and responses, 5 MiB for embeddings. */
export const MAX_COMPLETION_BODY_BYTES = 20 * 1024 * 1024;
export const MAX_EMBEDDINGS_BODY_BYTES = 5 * 1024 * 1024;

/**
 * Reads a JSON body as OpenClaw does: the content type is not checked, an empty body is `{}`,
 * malformed JSON is a 400 with the parser's own message, too much is a 413 (announced sizes
 * are refused before reading), and the schema's first issue is the message.
 */
export async function readOpenAiBody<S extends z.ZodType>(
  c: Context,
  schema: S,
  maxBytes: number,
): Promise<z.infer<S>> {
  const bytes = await readBoundedBody(c.req.raw, maxBytes);
  if (bytes === BODY_TOO_LARGE) throw tooLarge();
  const text = new TextDecoder().decode(bytes);
  let raw: unknown = {};
  const trimmed = text.trim();
  if (trimmed !== "") {
    try {
      // Trimmed first, as OpenClaw reads it (the parser's positions in errors are then the same).
      raw = JSON.parse(trimmed);
    } catch (error) {
      throw invalidRequest((error as Error).message);
    }
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw invalidRequest(schemaMessage(parsed.error));
  return parsed.data;
}

function tooLarge(): OpenAiError {
  return new OpenAiError(413, "invalid_request_error", PAYLOAD_TOO_LARGE);
}
