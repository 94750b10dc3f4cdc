import { Hono } from "hono";
import { type AppEnv, requireScope } from "../../http/context";
import { ApiError, toApiError } from "../../http/errors";
import { readJsonValue } from "../../http/request";
import { errorBody } from "../../protocol/http";
import { invokeBodySchema } from "../../protocol/tool-args";
import { invokeTool } from "../../tools/invoke";
import { admitToolCall } from "../../tools/tool-meter";

/** OpenClaw's `POST /tools/invoke`: `{ tool, args, sessionKey, action }` → `{ ok, result }`. */
export const toolRoutes = new Hono<AppEnv>();

toolRoutes.post("/tools/invoke", requireScope("operator.write", { allowRunToken: true }), async (c) => {
  const tenant = c.var.tenant;
  const admitted = await admitToolCall(tenant);
  if (!admitted.ok) {
    c.header("Retry-After", String(admitted.retryAfterSeconds));
    return c.json(errorBody("rate_limited", admitted.message), 429);
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
    return c.json({ ok: true, result: await invokeTool(tenant, body.data) });
  } catch (error) {
    throw toApiError(error, "tool");
  }
});
