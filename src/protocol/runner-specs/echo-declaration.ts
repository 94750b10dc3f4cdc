import { z } from "zod";
import { defineRunnerDeclaration } from "./runner-declaration";

/** The built-in runner (development and tests): replies `ECHO: <text>`, calls nothing, the model `echo/echo`. */
export const echoDeclaration = defineRunnerDeclaration({
  type: "echo",
  label: "Echo",
  schema: z.strictObject({ type: z.literal("echo") }),
  callsBack: false,
  acpHarness: false,
  facts: () => ({ urls: [], offersTools: false }),
});
