import { invalidRequest } from "./errors";
import type { ChatCompletionRequest } from "./openai-schemas";

/** Chat completion fields OpenClaw checks after its schema, in its order, with its texts. */
export function checkChatFields(body: ChatCompletionRequest): void {
  const format = body.response_format;
  if (format !== undefined && format !== null) {
    if (typeof format !== "object" || Array.isArray(format)) {
      throw invalidRequest("Invalid response_format: response_format must be an object");
    }
    const type = (format as { type?: unknown }).type;
    if (type !== "text" && type !== "json_object" && type !== "json_schema") {
      throw invalidRequest("Invalid response_format: response_format.type must be text, json_object, or json_schema");
    }
  }
  if (Array.isArray(body.stop)) {
    if (body.stop.length > 4) throw invalidRequest("Invalid stop: stop supports at most 4 sequences");
    if (body.stop.some((entry) => entry === "")) {
      throw invalidRequest("Invalid stop: stop entries must be non-empty strings");
    }
  }
  range(body.temperature, 0, 2, "`temperature` must be between 0 and 2.");
  range(body.top_p, 0, 1, "`top_p` must be between 0 and 1.");
  range(body.frequency_penalty, -2, 2, "`frequency_penalty` must be between -2.0 and 2.0.");
  range(body.presence_penalty, -2, 2, "`presence_penalty` must be between -2.0 and 2.0.");
  if (typeof body.seed === "number" && !Number.isInteger(body.seed)) throw invalidRequest("`seed` must be an integer.");
}

function range(value: number | null | undefined, min: number, max: number, message: string): void {
  if (typeof value === "number" && (value < min || value > max)) throw invalidRequest(message);
}
