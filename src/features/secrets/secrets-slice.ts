import { deleteSecret, listSecrets, setSecret } from "../../domain/secrets";
import {
  secretsStoreDeleteParamsSchema,
  secretsStoreListParamsSchema,
  secretsStoreSetParamsSchema,
} from "../../protocol/secrets";
import { defineMethod } from "../../registry/method";
import type { Slice } from "../../registry/slice";
import { secretRoutes } from "./secret-routes";

/** The tenant secret store: `secrets.store.*` over the gateway (operator.admin, as OpenClaw) and `/v1/secrets`. */
export const secretsSlice: Slice = {
  name: "secrets",
  methods: {
    "secrets.store.list": defineMethod({
      scope: "operator.admin",
      roles: ["secrets"],
      params: secretsStoreListParamsSchema,
      handle: ({ ctx }) => listSecrets(ctx),
    }),
    "secrets.store.set": defineMethod({
      scope: "operator.admin",
      roles: ["secrets"],
      params: secretsStoreSetParamsSchema,
      handle: ({ ctx, params }) => setSecret(ctx, params),
    }),
    "secrets.store.delete": defineMethod({
      scope: "operator.admin",
      roles: ["secrets"],
      params: secretsStoreDeleteParamsSchema,
      handle: async ({ ctx, params }) => {
        const { deleted: _deleted, ...answer } = await deleteSecret(ctx, params.name);
        return answer;
      },
    }),
  },
  routes: { tenant: [secretRoutes] },
};
