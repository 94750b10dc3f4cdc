import { expect, inject } from "vitest";
import { freshTenant, type TestTenant } from "./helpers";

/**
 * The test peer's `record:<tenant>` model (test/peers/peer-server.ts): it answers as echo and keeps
 * each request, so a test reads what a turn told the model. Shared by the channel tests.
 */

const peer = () => `http://127.0.0.1:${inject("peerPort")}`;

/** A fresh tenant whose one agent runs on the recording model, with `channels` configured. */
export async function recordingModelTenant(label: string, channels: Record<string, unknown>): Promise<TestTenant> {
  const t = await freshTenant(label);
  const put = await t.config({
    agents: {
      list: [
        { id: "main", default: true, runner: { type: "openai", baseUrl: `${peer()}/v1`, model: `record:${t.id}` } },
      ],
    },
    channels,
  });
  expect(put.status, put.text).toBe(200);
  return t;
}
