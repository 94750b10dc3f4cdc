import { Hono } from "hono";
import type { AppEnv } from "../../http/context";
import { oauthRoutes } from "../../oauth/oauth-routes";
import type { Slice } from "../../registry/slice";
import { mcpRoutes } from "./mcp-http";
import { MCP_OPERATIONS } from "./mcp-operations";

/**
 * The MCP endpoint (src/features/mcp/) and the OAuth authorization server its clients sign in with
 * (src/oauth/): their own auth (operator tokens or OAuth), so before the tenant routes.
 */
export const mcpSlice: Slice = {
  name: "mcp",
  routes: { own: new Hono<AppEnv>().route("/", oauthRoutes).route("/", mcpRoutes) },
  openApi: MCP_OPERATIONS,
};
