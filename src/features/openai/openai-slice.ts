import { atTenantAndRoot } from "../../http/core-app";
import type { Slice } from "../../registry/slice";
import { OPENAI_OPERATIONS } from "./openai-operations";
import { openAiRoutes } from "./openai-routes";

/** The OpenAI-compatible routes (src/features/openai/): they answer in OpenAI's error shape, so before the tenant routes. */
export const openAiSlice: Slice = {
  name: "openai",
  routes: { own: atTenantAndRoot(openAiRoutes) },
  openApi: OPENAI_OPERATIONS,
};
