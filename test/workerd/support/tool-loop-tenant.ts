import { afterEach, expect, inject } from "vitest";
import { call, createTenant, history, issueToken } from "./helpers";
import { GatewayClient } from "./ws-helpers";

/** The scripted tool-calling mock model (test/peers/tool-mock-model.mjs). */
export const toolModel = `http://127.0.0.1:${inject("toolModelPort")}/v1`;

const open: GatewayClient[] = [];
afterEach(() => {
  for (const c of open.splice(0)) c.close();
});

/** Closes `client` after the test. */
export function keepOpen(client: GatewayClient): GatewayClient {
  open.push(client);
  return client;
}

/** A tenant whose `main` runs on the mock model (`runner` adds to its runner), and a connected client. */
export async function toolLoopTenant(
  id: string,
  extra: Record<string, unknown> = {},
  runner: Record<string, unknown> = {},
) {
  await createTenant(id);
  const admin = await issueToken(id);
  const config = {
    agents: {
      list: [{ id: "main", default: true, runner: { type: "openai", baseUrl: toolModel, model: "mock", ...runner } }],
    },
    ...extra,
  };
  const put = await call(`/t/${id}/v1/config`, { method: "PUT", token: admin.token, json: config });
  expect(put.status, put.text).toBe(200);
  const client = await GatewayClient.connect({ path: `/t/${id}`, token: admin.token });
  open.push(client);
  return { token: admin.token, client };
}

/** The session's transcript with tool results. */
export async function transcript(id: string, token: string, key = "main") {
  const res = await history(key, "?limit=200&includeTools=1", { token, prefix: `/t/${id}` });
  expect(res.status).toBe(200);
  return res.data.messages as Array<Record<string, any>>;
}
