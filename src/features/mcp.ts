import { mcpRoutes } from "../mcp/http";
import type { Slice } from "../registry/slice";

/** The MCP endpoint (src/mcp/) with its own auth (operator tokens or OAuth), before the tenant routes. */
export const mcpSlice: Slice = { name: "mcp", routes: { own: mcpRoutes } };
