import type { Operation } from "../../http/openapi/operations";
import { runCallbackResultSchema, secretSchema } from "../../http/openapi/responses";
import { runListQuerySchema, runListResponseSchema, runQuerySchema, runResponseSchema } from "../../protocol/runs";
import { runCompleteBodySchema, runProgressBodySchema } from "../../protocol/webhooks";

/** Runs over HTTP and the webhook runners' callbacks. */
export const RUN_OPERATIONS: Operation[] = [
  {
    method: "get",
    path: "/v1/runs/:runId",
    scope: "tenant",
    tag: "Runs",
    summary: "A run: status, timestamps, error, reply, usage; ?wait= long-polls until it ends",
    auth: "operator.read",
    query: runQuerySchema,
    ok: { status: 200, schema: runResponseSchema, description: "The run (as it is after the wait)." },
    errors: [400, 404],
  },
  {
    method: "get",
    path: "/v1/sessions/:key/runs",
    scope: "tenant",
    tag: "Runs",
    summary: "A session's runs, newest first (paged)",
    auth: "operator.read",
    query: runListQuerySchema,
    ok: { status: 200, schema: runListResponseSchema, description: "A page of runs." },
    errors: [400, 404],
  },
  {
    method: "post",
    path: "/v1/runs/:runId/events",
    scope: "tenant",
    tag: "Webhook runner callbacks",
    summary: "Progress of a deferred webhook run (run token of this run)",
    auth: "run",
    body: runProgressBodySchema,
    ok: { status: 200, schema: runCallbackResultSchema, description: "Acknowledged." },
    errors: [400, 404],
  },
  {
    method: "post",
    path: "/v1/runs/:runId/complete",
    scope: "tenant",
    tag: "Webhook runner callbacks",
    summary: "Complete a deferred webhook run (late and repeated calls change nothing)",
    auth: "run",
    body: runCompleteBodySchema,
    ok: { status: 200, schema: runCallbackResultSchema, description: "Acknowledged." },
    errors: [400, 404],
  },
  {
    method: "get",
    path: "/v1/runner-secret",
    scope: "tenant",
    tag: "Webhook runner callbacks",
    summary: "The HMAC key outbound webhook bodies are signed with",
    auth: "operator.admin",
    ok: { status: 200, schema: secretSchema, description: "The secret." },
  },
  {
    method: "post",
    path: "/v1/runner-secret/rotate",
    scope: "tenant",
    tag: "Webhook runner callbacks",
    summary: "Rotate the runner secret",
    auth: "operator.admin",
    ok: { status: 200, schema: secretSchema, description: "The new secret." },
  },
];
