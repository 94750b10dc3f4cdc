import { describe, expect, it } from "vitest";
import type { z } from "zod";
import type { TenantContext } from "../../../src/domain/context";
import { agentsListDeclaration } from "../../../src/protocol/tool-specs/agents-list-declaration";
import { MODEL_OFFERED_DECLARATIONS, TOOL_DECLARATIONS } from "../../../src/protocol/tool-specs/tool-declarations";
import { TOOL_SPECS } from "../../../src/tools/catalog";
import { runTool } from "../../../src/tools/invoke";
import { jsonResult } from "../../../src/tools/result";
import { defineTool } from "../../../src/tools/tool-spec";

type JsonSchema = { type?: string; required?: string[]; properties?: Record<string, JsonSchema>; enum?: unknown[] };

/** A value the model's JSON Schema accepts for a property (what a model would send). */
function sampleValue(schema: JsonSchema): unknown {
  if (schema.enum) return schema.enum[0];
  if (schema.type === "integer" || schema.type === "number") return 1;
  if (schema.type === "boolean") return true;
  if (schema.type === "array") return [];
  if (schema.type === "object") return {};
  return "x";
}

/** The keys a zod object schema requires (those an empty object fails on). */
function zodRequired(schema: z.ZodType): string[] {
  const parsed = schema.safeParse({});
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) => String(issue.path[0])).sort();
}

describe("tool specs", () => {
  it("are one list: unique names, TOOL_SPECS in the declarations' order", () => {
    const names = TOOL_DECLARATIONS.map((tool) => tool.name);
    expect(new Set(names).size).toBe(names.length);
    expect(TOOL_SPECS.map((tool) => tool.name)).toEqual(names);
    for (const tool of TOOL_SPECS) expect(typeof tool.run).toBe("function");
    const ranks = MODEL_OFFERED_DECLARATIONS.map((tool) => tool.model.rank);
    expect(new Set(ranks).size).toBe(ranks.length);
  });

  it("each has a title, a label and a description for every reader", () => {
    for (const tool of TOOL_DECLARATIONS) {
      expect(tool.title, tool.name).toMatch(/\S/);
      expect(tool.label, tool.name).toMatch(/\S/);
      expect(tool.description, tool.name).toMatch(/\S/);
      if (tool.model) {
        expect(tool.model.summary, tool.name).toMatch(/\S/);
        expect(tool.model.schema.description, tool.name).toMatch(/\S/);
      }
    }
  });

  it("describes for MCP only arguments the zod schema has", () => {
    for (const tool of TOOL_DECLARATIONS) {
      const shape = (tool.args as z.ZodObject).shape;
      for (const param of Object.keys(tool.params ?? {})) expect(shape, `${tool.name}.${param}`).toHaveProperty(param);
    }
  });

  it("accepts with zod what the model's schema requires, and requires nothing the model may leave out", () => {
    for (const tool of MODEL_OFFERED_DECLARATIONS) {
      const parameters = tool.model.schema.parameters as JsonSchema;
      const required = parameters.required ?? [];
      const minimal = Object.fromEntries(required.map((key) => [key, sampleValue(parameters.properties![key]!)]));
      expect(tool.args.safeParse(minimal).success, `${tool.name} ${JSON.stringify(minimal)}`).toBe(true);
      expect(zodRequired(tool.args), tool.name).toEqual([...required].sort());
    }
  });

  it("computes each activity row's detail from arguments of any shape without throwing", () => {
    for (const tool of TOOL_DECLARATIONS) {
      expect(() => tool.meta?.({})).not.toThrow();
      expect(() => tool.meta?.({ sessionKey: { nested: true }, task: 5, label: null })).not.toThrow();
    }
  });

  it("declare the tenant roles their runs use, and a run gets no other role (typecheck)", () => {
    expect(Object.fromEntries(TOOL_SPECS.map((tool) => [tool.name, tool.roles]))).toEqual({
      sessions_list: ["index"],
      sessions_history: ["index"],
      session_status: ["index"],
      agents_list: [],
      sessions_send: ["index", "runs"],
      sessions_spawn: ["index", "runs"],
      sessions_wait: ["index"],
    });
    const tool = defineTool(agentsListDeclaration, ["index"], async (ctx) => {
      await ctx.tenant.session("main");
      // @ts-expect-error a tool declaring the index role cannot revoke a token (the access role's)
      await ctx.tenant.revokeToken("token-id");
      // @ts-expect-error nor record a run start (the runs role's)
      await ctx.tenant.recordRunStart("run-id", "main");
      return jsonResult({});
    });
    expect(tool.roles).toEqual(["index"]);
  });

  it("hand a run the tenant port of its declared roles only, at run time as well", async () => {
    const calls: string[] = [];
    const tenant = {
      session: async (key: string) => {
        calls.push(`session ${key}`);
        return null;
      },
      revokeToken: async () => {
        calls.push("revokeToken");
        return true;
      },
      recordRunStart: async () => {
        calls.push("recordRunStart");
        return { owner: "main" };
      },
    };
    const probe = defineTool(agentsListDeclaration, ["index"], async (ctx) => {
      await ctx.tenant.session("agent:main:main");
      const port = ctx.tenant as unknown as Record<string, unknown>;
      return jsonResult({
        session: typeof port.session,
        revokeToken: typeof port.revokeToken,
        run: typeof port.recordRunStart,
      });
    });
    const requester = { key: "agent:main:main", agentId: "main", sandboxed: false, spawnDepth: 0, isSubagent: false };
    const result = await runTool(probe, { tenant } as unknown as TenantContext, requester, {}, {});
    expect(result.details).toEqual({ session: "function", revokeToken: "undefined", run: "undefined" });
    expect(calls).toEqual(["session agent:main:main"]);
  });
});
