import { z } from "zod";
import { storeSecretRefSchema } from "../secrets";
import { defineRunnerDeclaration } from "./runner-declaration";

/** The tenant's own agent host: answers a signed run request, or takes it (202) and completes it by callback. */
export const webhookDeclaration = defineRunnerDeclaration({
  type: "webhook",
  label: "Webhook",
  schema: z.strictObject({
    type: z.literal("webhook"),
    url: z.url(),
    /** Offer the session tools to the host: it may answer with `toolCalls` for this service to run. */
    tools: z.boolean().optional(),
    /** Signs run requests with this store secret instead of the tenant's runner secret. */
    secret: storeSecretRefSchema.optional(),
  }),
  callsBack: true,
  acpHarness: true,
  facts: (config) => ({ urls: [{ field: "url", url: config.url }], offersTools: config.tools === true }),
});
