import { defineMethod } from "../../registry/method";
import type { Slice } from "../../registry/slice";
import { AUTOMATION_OPERATIONS } from "./automation-operations";
import { automationRoutes } from "./automation-routes";
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
} from "./automations";
import {
  cronAddParamsSchema,
  cronGetParamsSchema,
  cronListParamsSchema,
  cronRemoveParamsSchema,
  cronRunParamsSchema,
  cronRunsParamsSchema,
  cronStatusParamsSchema,
  cronUpdateParamsSchema,
} from "./cron-schemas";

/**
 * Automations (`cron.*`) over the gateway and `/v1/automations`, with OpenClaw's scopes: reading
 * needs operator.read, changing operator.admin.
 */
export const automationsSlice: Slice = {
  name: "automations",
  methods: {
    "cron.status": defineMethod({
      scope: "operator.read",
      roles: ["runs"],
      params: cronStatusParamsSchema,
      handle: ({ ctx }) => cronStatus(ctx),
    }),
    "cron.list": defineMethod({
      scope: "operator.read",
      roles: ["runs"],
      params: cronListParamsSchema,
      handle: ({ ctx, params }) => listCronJobs(ctx, params),
    }),
    "cron.get": defineMethod({
      scope: "operator.read",
      roles: ["runs"],
      params: cronGetParamsSchema,
      handle: ({ ctx, params }) => getCronJob(ctx, jobIdOf("cron.get", params)),
    }),
    "cron.add": defineMethod({
      scope: "operator.admin",
      roles: ["runs"],
      params: cronAddParamsSchema,
      handle: ({ ctx, params }) => addCronJob(ctx, params),
    }),
    "cron.update": defineMethod({
      scope: "operator.admin",
      roles: ["runs"],
      params: cronUpdateParamsSchema,
      handle: ({ ctx, params }) =>
        updateCronJob(ctx, jobIdOf("cron.update", params), params.patch, params.expectedConfigRevision),
    }),
    "cron.remove": defineMethod({
      scope: "operator.admin",
      roles: ["runs"],
      params: cronRemoveParamsSchema,
      handle: ({ ctx, params }) => removeCronJob(ctx, jobIdOf("cron.remove", params)),
    }),
    "cron.run": defineMethod({
      scope: "operator.admin",
      roles: ["runs"],
      params: cronRunParamsSchema,
      handle: ({ ctx, params }) => runCronJob(ctx, jobIdOf("cron.run", params), params.mode),
    }),
    "cron.runs": defineMethod({
      scope: "operator.read",
      roles: ["runs"],
      params: cronRunsParamsSchema,
      handle: ({ ctx, params }) => cronRuns(ctx, params),
    }),
  },
  routes: { tenant: [automationRoutes] },
  openApi: AUTOMATION_OPERATIONS,
};
