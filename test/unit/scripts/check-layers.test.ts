import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";

// The layer guard of `npm run lint` (scripts/check-layers.mjs) run as lint runs it, on a copy of
// src/'s top-level entries (empty) plus the files a case adds: what it lets through and what it
// refuses, with the message a newcomer reads.

const ROOT = process.cwd();
const GUARD = join(ROOT, "scripts/check-layers.mjs");
/** The Node tier's tool-loop test the guard also asks for, so only a case's own files decide. */
const TOOL_LOOP_TEST = {
  "test/unit/runs/tool-loop.test.ts": 'import { runToolLoop } from "../../src/runs/tool-loop/tool-loop";\n',
};

/** The guard's exit status and complaints on src/'s entries (less `without`) with `files` added. */
function guard(files: Record<string, string>, without: string[] = []): { status: number | null; stderr: string } {
  const dir = mkdtempSync(join(tmpdir(), "check-layers-"));
  try {
    mkdirSync(join(dir, "src"));
    for (const entry of readdirSync(join(ROOT, "src"))) {
      if (without.includes(entry)) continue;
      if (statSync(join(ROOT, "src", entry)).isDirectory()) mkdirSync(join(dir, "src", entry));
      else writeFileSync(join(dir, "src", entry), "");
    }
    for (const [path, text] of Object.entries({ ...TOOL_LOOP_TEST, ...files })) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const { status, stderr } = spawnSync(process.execPath, [GUARD], { cwd: dir, encoding: "utf8" });
    return { status, stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("the layer guard (scripts/check-layers.mjs)", () => {
  it("passes src/'s entries as they are, with imports that point down or carry only types", () => {
    const result = guard({
      "src/domain/operation.ts": 'import { rule } from "../policy/rule";\nimport type { Op } from "../features/op";\n',
      "src/policy/rule.ts": 'import { shape } from "../protocol/shape";\n',
      "src/session/wiring.ts": 'import { store } from "../storage/sql";\n',
    });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
  });

  it("fails an entry placed in no layer, saying where to place it", () => {
    const result = guard({ "src/widgets/widget.ts": "export const widget = 1;\n" });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      "layer guard: src/widgets is in no layer: add it to LAYERS in scripts/check-layers.mjs",
    );
  });

  it("fails an entry placed but gone from src/", () => {
    const result = guard({}, ["pending"]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("layer guard: src/pending does not exist: remove it from LAYERS");
  });

  it("fails an upward import, naming the file, the entry and both layers", () => {
    const result = guard({ "src/util/fetch.ts": 'import { checkOutboundUrl } from "../policy/outbound-url";\n' });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      "layer guard: base imports upward: src/util/fetch.ts imports ../policy/outbound-url (policy, rules)",
    );
  });

  it("fails a session object that imports a door, and a tenant object that imports the slices", () => {
    const result = guard({
      "src/session/parts.ts": 'import { queueHookReply } from "../features/hooks/hook-delivery";\n',
      "src/tenant/gateway.ts": 'import { GATEWAY_METHODS } from "../slices";\n',
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      "run hosts imports upward: src/session/parts.ts imports ../features/hooks/hook-delivery",
    );
    expect(result.stderr).toContain("gateway hosts imports upward: src/tenant/gateway.ts imports ../slices");
  });

  it("fails a feature that imports another feature's folder", () => {
    const result = guard({
      "src/features/console/peek.ts": 'import { x } from "../sessions/sessions";\nexport const peek = x;\n',
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      "a feature imports another: src/features/console/peek.ts imports ../sessions/sessions (features/sessions)",
    );
  });

  it("fails an engine that reaches another object's stub instead of a port", () => {
    const result = guard({ "src/runs/step.ts": 'import { tenantApi } from "../stubs";\n' });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("engine reaches an object directly: src/runs/step.ts imports ../stubs");
  });

  it("fails a folder cycle inside one layer", () => {
    const result = guard({
      "src/http/a.ts": 'import { b } from "../gateway/b";\n',
      "src/gateway/b.ts": 'import { a } from "../http/a";\n',
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("layer guard: folder cycle {gateway, http}");
  });
});
