import { describe, expect, it } from "vitest";
import { logFileLine } from "../../../src/features/console/usage-and-logs";

describe("tenant log lines as the Control UI's Logs page reads them", () => {
  it("adds time, subsystem and a readable message, keeping the fields", () => {
    const stored = {
      level: "warn",
      event: "run.failed",
      tenant: "acme",
      session: "agent:main:main",
      run: "r1",
      error: "model endpoint unreachable",
      ts: "2026-11-26T01:00:00.000Z",
    };
    expect(JSON.parse(logFileLine(JSON.stringify(stored)))).toEqual({
      ...stored,
      time: "2026-11-26T01:00:00.000Z",
      subsystem: "run.failed",
      // The tenant is the reader's own: not repeated in the message.
      message: "run.failed session=agent:main:main run=r1 error=model endpoint unreachable",
    });
  });
});
