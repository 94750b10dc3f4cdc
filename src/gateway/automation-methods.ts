import {
  addCronJob,
  cronRuns,
  cronStatus,
  getCronJob,
  jobIdOf,
  listCronJobs,
  removeCronJob,
  runCronJob,
  updateCronJob,
} from "../domain/cron";
import { deleteSecret, listSecrets, setSecret } from "../domain/secrets";
import {
  cronAddParamsSchema,
  cronGetParamsSchema,
  cronListParamsSchema,
  cronRemoveParamsSchema,
  cronRunParamsSchema,
  cronRunsParamsSchema,
  cronStatusParamsSchema,
  cronUpdateParamsSchema,
} from "../protocol/cron";
import type { OperatorScope } from "../protocol/http";
import {
  secretsStoreDeleteParamsSchema,
  secretsStoreListParamsSchema,
  secretsStoreSetParamsSchema,
} from "../protocol/secrets";
import { type SimpleMethod, simpleMethod } from "./simple-method";

/**
 * The tenant secret store (`secrets.store.*`) and automations (`cron.*`) over the gateway,
 * with OpenClaw's scopes: reading automations needs operator.read, changing them and
 * everything about secrets operator.admin.
 */

const method = simpleMethod;

const READ: OperatorScope = "operator.read";
const ADMIN: OperatorScope = "operator.admin";

export const AUTOMATION_METHODS: Record<string, SimpleMethod> = {
  "secrets.store.list": method({
    scope: ADMIN,
    params: secretsStoreListParamsSchema,
    handle: ({ ctx }) => listSecrets(ctx),
  }),
  "secrets.store.set": method({
    scope: ADMIN,
    params: secretsStoreSetParamsSchema,
    handle: ({ ctx, params }) => setSecret(ctx, params),
  }),
  "secrets.store.delete": method({
    scope: ADMIN,
    params: secretsStoreDeleteParamsSchema,
    handle: async ({ ctx, params }) => {
      const { deleted: _deleted, ...answer } = await deleteSecret(ctx, params.name);
      return answer;
    },
  }),
  "cron.status": method({ scope: READ, params: cronStatusParamsSchema, handle: ({ ctx }) => cronStatus(ctx) }),
  "cron.list": method({
    scope: READ,
    params: cronListParamsSchema,
    handle: ({ ctx, params }) => listCronJobs(ctx, params ?? {}),
  }),
  "cron.get": method({
    scope: READ,
    params: cronGetParamsSchema,
    handle: ({ ctx, params }) => getCronJob(ctx, jobIdOf("cron.get", params)),
  }),
  "cron.add": method({
    scope: ADMIN,
    params: cronAddParamsSchema,
    handle: ({ ctx, params }) => addCronJob(ctx, params),
  }),
  "cron.update": method({
    scope: ADMIN,
    params: cronUpdateParamsSchema,
    handle: ({ ctx, params }) =>
      updateCronJob(ctx, jobIdOf("cron.update", params), params.patch, params.expectedConfigRevision),
  }),
  "cron.remove": method({
    scope: ADMIN,
    params: cronRemoveParamsSchema,
    handle: ({ ctx, params }) => removeCronJob(ctx, jobIdOf("cron.remove", params)),
  }),
  "cron.run": method({
    scope: ADMIN,
    params: cronRunParamsSchema,
    handle: ({ ctx, params }) => runCronJob(ctx, jobIdOf("cron.run", params), params.mode),
  }),
  "cron.runs": method({
    scope: READ,
    params: cronRunsParamsSchema,
    handle: ({ ctx, params }) => cronRuns(ctx, params ?? {}),
  }),
};
