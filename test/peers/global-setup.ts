import type { TestProject } from "vitest/node";
import { startPeers } from "./peer-server";
// @ts-expect-error a plain ES module shared with the e2e tests
import { startToolMockModel } from "./tool-mock-model.mjs";

/** Starts the test peers (model and webhook hosts on 127.0.0.1) once for the whole run. */
export default async function setup(project: TestProject) {
  const peers = await startPeers();
  const toolModel = await startToolMockModel();
  // The keys are declared for test files in test/workerd/support/provided-context.d.ts.
  (project.provide as (key: string, value: unknown) => void)("peerPort", peers.port);
  (project.provide as (key: string, value: unknown) => void)("toolModelPort", toolModel.port);
  return async () => {
    await peers.close();
    await toolModel.close();
  };
}
