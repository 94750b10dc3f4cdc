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
  return doorError(new URL(c.req.url).pathname, LOOP_DETECTED, "loop_detected", LOOP_MESSAGE);
};

/**
 * An error in the shape of the door a path belongs to: OpenAI's on the OpenAI routes, a
 * JSON-RPC error on MCP, `{ ok: false, error: { type, message } }` everywhere else.
 */
export function doorError(path: string, status: number, type: string, message: string): Response {
  if (OPENAI_PATH.test(path))
    return Response.json(openAiErrorBody({ message, type: "invalid_request_error", code: type }), { status });
  if (MCP_PATH.test(path))
    return Response.json({ jsonrpc: "2.0", error: { code: -32600, message }, id: null }, { status });
  return Response.json(errorBody(type, message), { status });
}
