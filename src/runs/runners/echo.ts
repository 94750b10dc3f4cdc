import type { Runner } from "./runner";

/** Deterministic runner for development and tests: replies `ECHO: <text>`. */
export const echoRunner: Runner = async (request) => {
  const text = `ECHO: ${request.input.message}`;
  request.onText(text);
  const input = Math.ceil(request.input.message.length / 4);
  const output = Math.ceil(text.length / 4);
  return {
    kind: "reply",
    text,
    usage: { input, output, totalTokens: input + output },
    stopReason: "stop",
    provider: "echo",
    model: "echo",
    api: "echo",
  };
};
