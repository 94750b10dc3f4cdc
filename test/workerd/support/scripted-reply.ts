import { inject } from "vitest";

/**
 * A model that answers `reply` (the test peer's scripted scenario, test/peers/peer-server.ts):
 * the agents list of a tenant whose every run ends with that text.
 */
export async function scriptedReplyAgents(scenario: string, reply: string) {
  const peer = `http://127.0.0.1:${inject("peerPort")}`;
  await fetch(`${peer}/control/script`, { method: "POST", body: JSON.stringify({ scenario, primary: reply }) });
  const runner = { type: "openai", baseUrl: `${peer}/v1`, model: `scripted:${scenario}` };
  return { list: [{ id: "main", default: true, runner }] };
}
