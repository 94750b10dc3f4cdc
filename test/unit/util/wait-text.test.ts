import { describe, expect, it } from "vitest";
import { waitText } from "../../../src/util/wait-text";

describe("waitText (a refusal's retry time in its message)", () => {
  it("rounds up to seconds, minutes, then hours and minutes", () => {
    expect(waitText(0)).toBe("1 s");
    expect(waitText(41_200)).toBe("42 s");
    expect(waitText(119_000)).toBe("119 s");
    expect(waitText(120_000)).toBe("2 min");
    expect(waitText(59 * 60_000 + 1)).toBe("60 min");
    expect(waitText(2 * 3_600_000)).toBe("2 h");
    expect(waitText(5 * 3_600_000 + 3 * 60_000)).toBe("5 h 3 min");
  });
});
