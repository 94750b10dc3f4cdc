import { automationsSlice } from "./features/automations";
import { channelsSlice } from "./features/channels";
import { configSlice } from "./features/config";
import { consoleSlice } from "./features/console";
import { hooksSlice } from "./features/hooks";
import { hostSlice } from "./features/host";
import { mcpSlice } from "./features/mcp";
import { openAiSlice } from "./features/openai";
import { runsSlice } from "./features/runs";
import { secretsSlice } from "./features/secrets";
import { sessionsSlice } from "./features/sessions";
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
];

/** The gateway's methods, handed to each gateway hub (a name registered twice throws here, at load). */
export const GATEWAY_METHODS = composeMethods(SLICES);
