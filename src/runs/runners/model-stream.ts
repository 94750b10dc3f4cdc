import { guardedFetch } from "../../policy/guarded-fetch";
import { RunnerError, type RunnerRequest } from "./runner";
import { upstreamFailureDetail, upstreamFailureText } from "./upstream-failure";

/**
 * POSTs a model's streamed request (a JSON body) through the outbound guard and answers the
 * `data:` payloads of its SSE answer. An endpoint that cannot be reached, or that answers an
 * error, is a RunnerError (OpenClaw's upstream failure text, `apiKey` redacted from the detail);
 * an abort passes as it is.
 */
export async function postModelStream(
  request: Pick<RunnerRequest, "signal" | "outbound">,
  endpoint: string,
  headers: Record<string, string>,
  body: unknown,
  apiKey: string | undefined,
): Promise<AsyncGenerator<string>> {
  let response: Response;
  try {
    response = await guardedFetch(
      endpoint,
      {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
        signal: request.signal,
      },
      request.outbound,
    );
  } catch (error) {
    if (request.signal.aborted) throw error;
    throw new RunnerError(`model endpoint unreachable: ${(error as Error).message}`);
  }
  if (!response.ok || !response.body) {
    throw new RunnerError(upstreamFailureText(response.status, await upstreamFailureDetail(response, [apiKey])));
  }
  return sseData(response.body);
}

/** The `data:` payloads of an SSE body, one per event (model streams: OpenAI and Anthropic). */
export async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = "";
  const reader = body.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    for (let newline = buffer.indexOf("\n"); newline >= 0; newline = buffer.indexOf("\n")) {
      const line = buffer.slice(0, newline).replace(/\r$/, "");
      buffer = buffer.slice(newline + 1);
      if (line.startsWith("data:")) yield line.slice(5).trim();
    }
  }
  const last = buffer.trim();
  if (last.startsWith("data:")) yield last.slice(5).trim();
}
