import type { TestProject } from "vitest/node";
import { startPeers } from "./peer-server";

/** Starts the test peers (model and webhook hosts on 127.0.0.1) once for the whole run. */
export default async function setup(project: TestProject) {
  const peers = await startPeers();
  // The key is declared for test files in test/provided-context.d.ts.
  (project.provide as (key: string, value: unknown) => void)("peerPort", peers.port);
  return () => peers.close();
}
