/** The body of an OpenAI-compatible route's error: `{ error: { message, type, code? } }` (features/openai/errors.ts). */
export type OpenAiErrorBody = { error: { message: string; type: string; code?: string } };

export function openAiErrorBody(error: { message: string; type: string; code?: string }): OpenAiErrorBody {
  return { error: { message: error.message, type: error.type, ...(error.code ? { code: error.code } : {}) } };
}
