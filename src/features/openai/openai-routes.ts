import { Hono, type MiddlewareHandler } from "hono";
import { type AppEnv, requireScope, tenantAuth } from "../../http/context";
import { tenantCors } from "../../http/tenant-cors";
import type { TenantConfig } from "../../protocol/config";
import { MAX_EMBEDDINGS_BODY_BYTES, readOpenAiBody } from "./body";
import { chatCompletions } from "./chat-handler";
import { invalidRequest, OpenAiError, openAiErrorBody, toOpenAiError } from "./errors";
import { modelList, resolveAgent, retrieveModel } from "./models";
import { embeddingsRequestSchema } from "./openai-schemas";
import { responses } from "./responses-handler";

/**
 * OpenClaw's OpenAI-compatible routes for one tenant (mounted at `/t/<tenantId>` and, for the
 * default tenant, at the root, ahead of the tenant routes). Every error is the OpenAI shape.
 * Checks run in OpenClaw's order where it has one: method, auth, switch, scope, body, fields.
 */
export function openAiRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.onError((error, c) => {
    const failure = toOpenAiError(error);
    return c.json(openAiErrorBody(failure), failure.status, failure.headers ?? {});
  });

  const routes: Array<[path: string, method: "GET" | "POST", switchName: EndpointSwitch]> = [
    ["/v1/models", "GET", "either"],
    ["/v1/models/*", "GET", "either"],
    ["/v1/chat/completions", "POST", "chatCompletions"],
    ["/v1/responses", "POST", "responses"],
    ["/v1/embeddings", "POST", "either"],
  ];
  for (const [path, method, switchName] of routes) {
    app.use(path, securityHeaders, tenantCors, allowOnly(method), tenantAuth, endpointOn(switchName));
  }

  app.get("/v1/models", requireScope("operator.read"), (c) => c.json(modelList(c.var.tenant.config)));
  app.get("/v1/models/*", requireScope("operator.read"), (c) => {
    const path = new URL(c.req.url).pathname;
    const rawId = path.slice(path.indexOf("/v1/models/") + "/v1/models/".length);
    return c.json(retrieveModel(c.var.tenant.config, rawId));
  });
  app.post("/v1/chat/completions", requireScope("operator.write"), chatCompletions);
  app.post("/v1/responses", requireScope("operator.write"), responses);
  app.post("/v1/embeddings", requireScope("operator.write"), async (c) => {
    const body = await readOpenAiBody(c, embeddingsRequestSchema, MAX_EMBEDDINGS_BODY_BYTES);
    if (!body.model) throw invalidRequest("Missing `model`.");
    const agentId = resolveAgent(c.var.tenant.config, body.model, c.req.header("x-openclaw-agent-id"));
    checkEmbeddingInput(body.input);
    // No runner type of this service computes embeddings (echo, openai chat, webhook).
    throw invalidRequest(`Embeddings are not available: agent '${agentId}' has no embedding provider on this gateway.`);
  });
  return app;
}

/** Which config switch a route needs: its own, or (models, embeddings) either of the two. */
type EndpointSwitch = "chatCompletions" | "responses" | "either";

/**
 * `gateway.http.endpoints.<name>.enabled`. Unlike OpenClaw (off unless set), on unless set to
 * false: every caller here holds a tenant token with scopes, which already lets it run the
 * same agents over the gateway WebSocket (docs/openai.md).
 */
export function endpointEnabled(config: TenantConfig, name: "chatCompletions" | "responses"): boolean {
  return config.gateway?.http?.endpoints?.[name]?.enabled !== false;
}

function endpointOn(name: EndpointSwitch): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const config = c.var.tenant.config;
    const on =
      name === "either"
        ? endpointEnabled(config, "chatCompletions") || endpointEnabled(config, "responses")
        : endpointEnabled(config, name);
    if (!on) throw new OpenAiError(404, "invalid_request_error", "Not Found");
    await next();
  };
}

/** A wrong method is a 405 naming the right one, before authentication (as OpenClaw). */
function allowOnly(method: "GET" | "POST"): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.req.method !== method) {
      throw new OpenAiError(405, "invalid_request_error", "Method Not Allowed", undefined, { Allow: method });
    }
    await next();
  };
}

/** The headers OpenClaw puts on every answer of these routes. */
const securityHeaders: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  c.res.headers.set("X-Content-Type-Options", "nosniff");
  c.res.headers.set("Referrer-Policy", "no-referrer");
  c.res.headers.set("Permissions-Policy", "camera=(), microphone=(), geolocation=()");
};

const MAX_EMBEDDING_INPUTS = 128;
const MAX_EMBEDDING_INPUT_CHARS = 8192;
const MAX_EMBEDDING_TOTAL_CHARS = 65_536;

/** OpenClaw's input rules for `/v1/embeddings`, with its texts. */
function checkEmbeddingInput(input: unknown): void {
  const list = typeof input === "string" ? [input] : input;
  if (!Array.isArray(list) || list.some((entry) => typeof entry !== "string")) {
    throw invalidRequest("`input` must be a string or an array of strings.");
  }
  const texts = (list as string[]).filter((text) => text.trim() !== "");
  if (texts.length === 0) throw invalidRequest("`input` must contain at least one non-empty string.");
  if (list.length > MAX_EMBEDDING_INPUTS) throw invalidRequest(`Too many inputs (max ${MAX_EMBEDDING_INPUTS}).`);
  const total = texts.reduce((sum, text) => sum + text.length, 0);
  if (texts.some((text) => text.length > MAX_EMBEDDING_INPUT_CHARS) || total > MAX_EMBEDDING_TOTAL_CHARS) {
    throw invalidRequest(`Input too long (max ${MAX_EMBEDDING_INPUT_CHARS} chars).`);
  }
}
