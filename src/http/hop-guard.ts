import type { MiddlewareHandler } from "hono";
import { HOP_HEADER } from "../policy/outbound-url";
import { errorBody } from "../protocol/http";
import { openAiErrorBody } from "../protocol/openai-error";
import type { AppEnv } from "./context";

/** HTTP 508 Loop Detected (RFC 5842): the request came from this service itself. */
const LOOP_DETECTED = 508;

export const LOOP_MESSAGE =
  "Loop detected: this request was sent by this service (a runner, webhook or delivery URL that points back at it)";

const OPENAI_PATH = /(^|\/)v1\/(chat\/completions|responses|embeddings|models)(\/|$)/;
const MCP_PATH = /(^|\/)mcp$/;

/**
 * Every door of the service (HTTP API, OpenAI routes, MCP, /tools/invoke, the gateway upgrade)
 * refuses a request carrying the hop header its own outbound requests carry (guardedFetch):
 * a runner pointed at this service under any name fails at its first hop instead of starting a
 * chain of runs. Answered in each door's error shape.
 */
export const refuseOwnHop: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.header(HOP_HEADER) === undefined) return next();
  const path = new URL(c.req.url).pathname;
  if (OPENAI_PATH.test(path))
    return c.json(
      openAiErrorBody({ message: LOOP_MESSAGE, type: "invalid_request_error", code: "loop_detected" }),
      LOOP_DETECTED,
    );
  if (MCP_PATH.test(path))
    return c.json({ jsonrpc: "2.0", error: { code: -32600, message: LOOP_MESSAGE }, id: null }, LOOP_DETECTED);
  return c.json(errorBody("loop_detected", LOOP_MESSAGE), LOOP_DETECTED);
};
