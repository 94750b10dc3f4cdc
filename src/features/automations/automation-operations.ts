import { z } from "zod";
import { type Operation, operationFamily } from "../../http/openapi/operations";
import { secretPutBodySchema } from "../../protocol/secrets";
import {
  cronAddParamsSchema,
  cronJobListQuerySchema,
  cronPatchSchema,
  cronRunBodySchema,
  cronRunsQuerySchema,
} from "./cron-schemas";

/** The secret store and automations routes, for the OpenAPI document (features/secrets/secret-routes.ts, automation-routes.ts). */

const entry = z.looseObject({
  name: z.string(),
  kind: z.enum(["secret", "env"]),
  scopeKind: z.literal("team"),
  createdAtMs: z.number(),
  updatedAtMs: z.number(),
  allowedHosts: z.array(z.string()).optional().describe("`secret` entries: hosts the value may be sent to."),
  value: z.string().optional().describe("`env` entries only; a `secret` entry never carries its value."),
});
const mutation = z.object({ ok: z.literal(true), reloaded: z.boolean() });
const job = z.looseObject({
  id: z.string(),
  name: z.string(),
  enabled: z.boolean(),
  schedule: z.looseObject({ kind: z.enum(["at", "every", "cron"]) }),
  sessionTarget: z.string(),
  payload: z.looseObject({ kind: z.enum(["agentTurn", "systemEvent"]) }),
  state: z.looseObject({}),
});
const page = {
  total: z.number(),
  offset: z.number(),
  limit: z.number(),
  hasMore: z.boolean(),
  nextOffset: z.number().nullable(),
};
const runEntry = z.looseObject({
  jobId: z.string(),
  runId: z.string(),
  status: z.enum(["ok", "error", "skipped"]),
  runAtMs: z.number(),
  durationMs: z.number(),
  sessionKey: z.string().optional(),
  error: z.string().optional(),
});
const runsPage = z.object({ ok: z.literal(true), entries: z.array(runEntry), ...page });
const tag = "Automations";
const secrets = "Secret store";

export const AUTOMATION_OPERATIONS: Operation[] = [
  ...operationFamily({ scope: "tenant", tag: secrets, auth: "operator.admin" }, [
    {
      method: "get",
      path: "/v1/secrets",
      summary: "List the tenant's secret store (a `secret` entry's value is never returned)",
      description:
        'OpenClaw\'s `secrets.store.list`. Values are sealed at rest (AES-256-GCM with the deployment\'s key). Reference an entry from config with `{ source: "store", provider: "default", id: "NAME" }` (an `openai` runner\'s `apiKey`, a `webhook` runner\'s `secret`).',
      ok: {
        status: 200,
        schema: z.object({ ok: z.literal(true), entries: z.array(entry) }),
        description: "The entries, by name.",
      },
    },
    {
      method: "put",
      path: "/v1/secrets/:name",
      summary: "Create or replace a secret store entry (write-only)",
      description:
        "OpenClaw's `secrets.store.set`. Names match `^[A-Z][A-Z0-9_]{0,127}$`; values up to 64 KiB; `kind` defaults to `secret`. `allowedHosts` binds a secret to the hosts a runner may send it to. `reloaded`: the config references the entry, so the next run uses the new value.",
      body: secretPutBodySchema,
      ok: { status: 200, schema: mutation, description: "Stored." },
      errors: [400, 503],
    },
    {
      method: "delete",
      path: "/v1/secrets/:name",
      summary: "Delete a secret store entry",
      description: "Runs whose config references it fail from then on with an error naming the reference.",
      ok: { status: 200, schema: mutation.extend({ deleted: z.literal(true) }), description: "Deleted." },
      errors: [400, 404],
    },
  ]),
  ...operationFamily({ scope: "tenant", tag }, [
    {
      method: "get",
      path: "/v1/automations",
      summary: "List automations (OpenClaw's cron.list)",
      auth: "operator.read",
      query: cronJobListQuerySchema,
      ok: {
        status: 200,
        schema: z.object({ ok: z.literal(true), jobs: z.array(job), snapshotRevision: z.string(), ...page }),
        description: "A page of jobs, soonest due first (disabled ones with includeDisabled).",
      },
      errors: [400],
    },
    {
      method: "post",
      path: "/v1/automations",
      summary: "Create an automation (OpenClaw's cron.add)",
      description:
        "Schedules: `at` (ISO 8601, UTC without an offset), `every` (`everyMs`, at least the deployment's CRON_MIN_INTERVAL_MS), `cron` (5/6-field expression, `tz` IANA, UTC by default). `sessionTarget`: `isolated` (its own `agent:<agentId>:cron:<jobId>` session, with an `agentTurn` payload) or `main` (the agent's main session, with a `systemEvent` payload), `current` or `session:<key>`.",
      auth: "operator.admin",
      body: cronAddParamsSchema,
      ok: {
        status: 201,
        schema: z.object({ ok: z.literal(true), job }),
        description: "The job, with its next run time.",
      },
      errors: [400],
    },
    {
      method: "get",
      path: "/v1/automations/status",
      summary: "Scheduler status (OpenClaw's cron.status)",
      auth: "operator.read",
      ok: {
        status: 200,
        schema: z.looseObject({
          ok: z.literal(true),
          enabled: z.boolean(),
          jobs: z.number(),
          nextWakeAtMs: z.number().nullable(),
        }),
        description: "Always enabled: a Durable Object alarm fires jobs with nobody connected.",
      },
    },
    {
      method: "get",
      path: "/v1/automations/runs",
      summary: "Run history of every automation (OpenClaw's cron.runs, scope all)",
      auth: "operator.read",
      query: cronRunsQuerySchema,
      ok: { status: 200, schema: runsPage, description: "Newest first." },
      errors: [400],
    },
    {
      method: "get",
      path: "/v1/automations/:id",
      summary: "One automation (OpenClaw's cron.get)",
      auth: "operator.read",
      ok: { status: 200, schema: z.object({ ok: z.literal(true), job }), description: "The job." },
      errors: [404],
    },
    {
      method: "patch",
      path: "/v1/automations/:id",
      summary: 'Change an automation (OpenClaw\'s cron.update patch): pause with `{ "enabled": false }`',
      auth: "operator.admin",
      body: cronPatchSchema,
      ok: { status: 200, schema: z.object({ ok: z.literal(true), job }), description: "The changed job." },
      errors: [400, 404],
    },
    {
      method: "delete",
      path: "/v1/automations/:id",
      summary: "Delete an automation and its run history (OpenClaw's cron.remove)",
      auth: "operator.admin",
      ok: { status: 200, schema: z.object({ ok: z.literal(true), removed: z.literal(true) }), description: "Removed." },
      errors: [404],
    },
    {
      method: "post",
      path: "/v1/automations/:id/run",
      summary: "Run an automation now (OpenClaw's cron.run)",
      description:
        "`mode`: `force` (default), `if-enabled`, `due`. Answers `{ ok, enqueued, runId }` once the run started (follow it with the runs route's `runId` filter), or `{ ok, ran: false, reason }` (`already-running`, `disabled`, `not-due`).",
      auth: "operator.admin",
      body: cronRunBodySchema,
      ok: { status: 202, schema: z.looseObject({ ok: z.literal(true) }), description: "Started, or why not." },
      errors: [400, 404],
    },
    {
      method: "get",
      path: "/v1/automations/:id/runs",
      summary: "Run history of one automation (OpenClaw's cron.runs)",
      auth: "operator.read",
      query: cronRunsQuerySchema,
      ok: { status: 200, schema: runsPage, description: "Newest first." },
      errors: [400, 404],
    },
  ]),
];
