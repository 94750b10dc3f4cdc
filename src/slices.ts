import { automationsSlice } from "./features/automations/automations-slice";
import { channelsSlice } from "./features/channels/channels-slice";
import { configSlice } from "./features/config/config-slice";
import { consoleSlice } from "./features/console/console-slice";
import { hooksSlice } from "./features/hooks/hooks-slice";
import { hostSlice } from "./features/host/host-slice";
import { mcpSlice } from "./features/mcp/mcp-slice";
import { openAiSlice } from "./features/openai/openai-slice";
import { runsSlice } from "./features/runs/runs-slice";
import { secretsSlice } from "./features/secrets/secrets-slice";
import { sessionsSlice } from "./features/sessions/sessions-slice";
import { usageSlice } from "./features/usage/usage-slice";
import { composeMethods, type Slice } from "./registry/slice";

/**
 * Every feature slice (src/features/), in mount order: the gateway's method table, the HTTP app
 * and the OpenAPI document are composed from this list and nothing else.
 */
export const SLICES: readonly Slice[] = [
  hostSlice,
  sessionsSlice,
  runsSlice,
  configSlice,
  automationsSlice,
  secretsSlice,
  consoleSlice,
  channelsSlice,
  hooksSlice,
  mcpSlice,
  openAiSlice,
  usageSlice,
];

/** The gateway's methods, handed to each gateway hub (a name registered twice throws here, at load). */
export const GATEWAY_METHODS = composeMethods(SLICES);
