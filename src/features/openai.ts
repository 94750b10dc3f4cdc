import { atTenantAndRoot } from "../http/app";
import { OPENAI_OPERATIONS } from "../http/openapi/openai-operations";
import { openAiRoutes } from "../openai/routes";
import type { Slice } from "../registry/slice";

/** The OpenAI-compatible routes (src/openai/): they answer in OpenAI's error shape, so before the tenant routes. */
export const openAiSlice: Slice = {
  name: "openai",
  routes: { own: atTenantAndRoot(openAiRoutes) },
  openApi: OPENAI_OPERATIONS,
};
