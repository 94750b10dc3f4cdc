import { Hono } from "hono";
import { invokeBodySchema } from "../../protocol/tools";
import { invokeToolOverHttp } from "../../tools/invoke";
import { type AppEnv, requireScope } from "../context";
import { ApiError, errorBody, toApiError } from "../errors";
import { readJsonValue } from "../request";

/** Default tool calls per tenant per minute when the config sets none. */
export const DEFAULT_TOOLS_PER_MINUTE = 6000;

/** OpenClaw's `POST /tools/invoke`: `{ tool, args, sessionKey, action }` → `{ ok, result }`. */
export const toolRoutes = new Hono<AppEnv>();

toolRoutes.post("/tools/invoke", requireScope("operator.write", { allowRunToken: true }), async (c) => {
  const tenant = c.var.tenant;
  const perMinute = tenant.config.rateLimit?.toolsPerMinute ?? DEFAULT_TOOLS_PER_MINUTE;
  const retryAfterMs = await tenant.tenant.admit("tools", perMinute);
  if (retryAfterMs > 0) {
    c.header("Retry-After", String(Math.ceil(retryAfterMs / 1000)));
    return c.json(errorBody("rate_limited", `Too many tool calls: the limit is ${perMinute} per minute`), 429);
  }

  const raw = await readJsonValue(c);
  const body = invokeBodySchema.safeParse(raw);
  if (!body.success) {
    const tool = typeof raw === "object" && raw !== null ? (raw as { tool?: unknown }).tool : undefined;
    const hasTool = typeof tool === "string" && tool.trim() !== "";
    throw new ApiError(
      400,
      "invalid_request",
      hasTool ? "invalid tools.invoke body" : "tools.invoke requires body.tool",
    );
  }
  try {
    return c.json({ ok: true, result: await invokeToolOverHttp(tenant, body.data) });
  } catch (error) {
    throw toApiError(error, "tool");
  }
});
