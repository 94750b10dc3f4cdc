import { describe, expect, it } from "vitest";
import { logFileLine } from "../../src/domain/ledger";

describe("tenant log lines as the Control UI's Logs page reads them", () => {
  it("adds time, subsystem and a readable message, keeping the fields", () => {
    const stored = JSON.stringify({
      level: "warn",
      event: "run.failed",
      tenant: "acme",
      session: "agent:main:main",
      run: "r1",
      error: "model endpoint unreachable",
      ts: "2026-11-26T01:00:00.000Z",
    });
    expect(JSON.parse(logFileLine(stored))).toEqual({
      time: "2026-11-26T01:00:00.000Z",
      level: "warn",
      subsystem: "run.failed",
      message: "run.failed session=agent:main:main run=r1 error=model endpoint unreachable",
      event: "run.failed",
      tenant: "acme",
      session: "agent:main:main",
      run: "r1",
      error: "model endpoint unreachable",
      ts: "2026-11-26T01:00:00.000Z",
    });
  });
});
