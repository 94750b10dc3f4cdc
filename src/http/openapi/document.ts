import { Hono } from "hono";
import { type DescribeRouteOptions, describeRoute, generateSpecs, resolver, validator } from "hono-openapi";
import { z } from "zod";
import { deliveryWebhookBodySchema, webhookRunReplySchema, webhookRunRequestSchema } from "../../protocol/webhooks";
import { ERROR_TEXT, type Operation } from "./operations";
import { errorSchema, openAiErrorSchema } from "./responses";

type Document = Record<string, unknown> & { paths: Record<string, Record<string, unknown>> };

/** `/v1/runs/:runId` → `/v1/runs/{runId}` */
export const toOpenApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");

const TENANT_SERVERS = [
  { url: "/t/{tenantId}", description: "Any tenant", variables: { tenantId: { default: "default" } } },
  { url: "/", description: "The deployment's DEFAULT_TENANT" },
];

const built = new WeakMap<readonly Operation[], Promise<Document>>();

/**
 * The OpenAPI 3.1 document of `operations` (the app's: the core's and its slices', composed in
 * src/http/core-app.ts), built once per isolate from them and their zod schemas.
 */
export function openApiDocument(operations: readonly Operation[]): Promise<Document> {
  let document = built.get(operations);
  if (!document) {
    document = build(operations);
    built.set(operations, document);
  }
  return document;
}

async function build(operations: readonly Operation[]): Promise<Document> {
  const app = new Hono();
  for (const operation of operations) {
    const handlers = [
      describeRoute(describe(operation)),
      ...(operation.query ? [validator("query", operation.query)] : []),
      ...(operation.body ? [validator("json", operation.body)] : []),
    ];
    app.on(operation.method.toUpperCase(), operation.path, ...(handlers as [ReturnType<typeof describeRoute>]));
  }
  const document = (await generateSpecs(app, {
    documentation: {
      info: {
        title: "openclaw-sessions-edge",
        version: "0.1.0",
        description: [
          "OpenClaw's session layer as a multi-tenant service on Cloudflare Workers + Durable Objects.",
          "Tenant routes are served under `/t/{tenantId}` and, for the deployment's default tenant, at the root.",
          "Errors are `{ ok: false, error: { type, message } }`. Outbound calls this service makes (webhook runners, the delivery webhook) are under `webhooks`.",
        ].join("\n\n"),
        license: { name: "MIT", identifier: "MIT" },
      },
      servers: [{ url: "/", description: "This deployment" }],
      components: {
        securitySchemes: {
          operator: {
            type: "http",
            scheme: "bearer",
            description: "An operator token (`ocs_…`) of the tenant, or a run token (`ocr_…`) where allowed.",
          },
          admin: { type: "http", scheme: "bearer", description: "The deployment's ADMIN_TOKEN." },
        },
      },
    },
    defaultValidationErrorResponse: false,
    excludeStaticFile: false,
  })) as unknown as Document;

  for (const operation of operations) {
    if (operation.scope !== "tenant") continue;
    const item = document.paths[toOpenApiPath(operation.path)];
    if (item) item.servers = TENANT_SERVERS;
  }
  for (const operation of operations) {
    if (operation.bodyContentTypes) withBodyContentTypes(document, operation, operation.bodyContentTypes);
  }
  return withWebhooks(document);
}

/** The request body's schema, offered under each media type the route accepts. */
function withBodyContentTypes(document: Document, operation: Operation, types: string[]) {
  const described = document.paths[toOpenApiPath(operation.path)]?.[operation.method] as
    | { requestBody?: { content?: Record<string, unknown> } }
    | undefined;
  const content = described?.requestBody?.content;
  const json = content?.["application/json"];
  if (!content || !json) return;
  for (const type of types) content[type] = json;
}

function describe(operation: Operation): DescribeRouteOptions {
  const errors = new Set(operation.errors ?? []);
  if (operation.auth !== "none") errors.add(401);
  if (operation.auth.startsWith("operator") || operation.auth === "run") errors.add(403);
  const responses: NonNullable<DescribeRouteOptions["responses"]> = {
    [operation.ok.status]: {
      description: operation.ok.description,
      ...(operation.ok.schema
        ? { content: { [operation.ok.contentType ?? "application/json"]: { schema: resolver(operation.ok.schema) } } }
        : operation.ok.text
          ? { content: { [operation.ok.contentType ?? "text/plain"]: { schema: { type: "string" } } } }
          : {}),
    },
  };
  for (const status of [...errors].sort()) {
    responses[status] = {
      description: ERROR_TEXT[status] ?? "Error.",
      content: {
        "application/json": { schema: resolver(operation.errorShape === "openai" ? openAiErrorSchema : errorSchema) },
      },
    };
  }
  return {
    tags: [operation.tag],
    summary: operation.summary,
    ...(operation.description ? { description: operation.description } : {}),
    ...(operation.auth === "none"
      ? { security: [] }
      : { security: [{ [operation.auth === "admin" ? "admin" : "operator"]: [] as string[] }] }),
    ...(operation.auth !== "none" && operation.auth !== "admin" ? { "x-scope": operation.auth } : {}),
    responses,
  };
}

/** OpenAPI 3.1 `webhooks`: the requests this service sends, with their schemas from zod. */
function withWebhooks(document: Document): Document {
  const components = document.components as Record<string, Record<string, unknown>>;
  components.schemas ??= {};
  const schemas = components.schemas;
  // Every zod schema with a `.meta({ id })`, converted once with references into components.
  const all = z.toJSONSchema(z.globalRegistry, {
    target: "draft-2020-12",
    io: "output",
    unrepresentable: "any",
    uri: (id) => `#/components/schemas/${id}`,
  }).schemas;
  // Referenced schemas may reference others: every registered one not yet in components is added.
  for (const [name, converted] of Object.entries(all)) {
    const { $schema: _schema, $id: _id, id: _metaId, ...schema } = converted as Record<string, unknown>;
    schemas[name] ??= schema;
  }
  const ref = (schema: z.ZodType) => ({ $ref: `#/components/schemas/${z.globalRegistry.get(schema)?.id}` });
  const signed = {
    in: "header",
    name: "x-openclaw-signature",
    required: true,
    description: "`sha256=<hex HMAC-SHA256 of the raw body>` with the tenant's runner secret (GET /v1/runner-secret).",
    schema: { type: "string" },
  };
  document.webhooks = {
    runnerRequest: {
      post: {
        summary: "A run for a webhook runner (POSTed to the runner's url)",
        description:
          "Answer 200 with a WebhookRunReply, or 202 and later call `callbacks.events` / `callbacks.complete` with `Authorization: Bearer <runToken>`. Any other status ends the run as error.",
        parameters: [signed],
        requestBody: {
          required: true,
          content: { "application/json": { schema: ref(webhookRunRequestSchema) } },
        },
        responses: {
          200: {
            description: "The reply.",
            content: { "application/json": { schema: ref(webhookRunReplySchema) } },
          },
          202: { description: "Accepted: the host completes the run by callback." },
        },
      },
    },
    delivery: {
      post: {
        summary: "A delivery to a channel (POSTed to delivery.webhookUrl)",
        description:
          "Retried with backoff until a 2xx, up to delivery.maxAttempts; the idempotency-key header repeats.",
        parameters: [signed, { in: "header", name: "idempotency-key", required: true, schema: { type: "string" } }],
        requestBody: {
          required: true,
          content: { "application/json": { schema: ref(deliveryWebhookBodySchema) } },
        },
        responses: { 200: { description: "Delivered (any 2xx)." } },
      },
    },
  };
  return document;
}
