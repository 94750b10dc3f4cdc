import type { z } from "zod";
import type { TenantContext } from "../domain/context";
import type { ToolDeclaration } from "../protocol/tool-specs/tool-declarations";
import type { Requester } from "./requester";
import type { ToolCall, ToolResult } from "./result";

export type ToolRun<S extends z.ZodType> = (
  ctx: TenantContext,
  requester: Requester,
  args: z.infer<S>,
  call: ToolCall,
) => Promise<ToolResult> | ToolResult;

/**
 * One session tool, whole: its declaration (arguments, the model's schema, descriptions, label,
 * title, groups: protocol/tool-specs/) and its run. TOOL_SPECS (./catalog.ts) lists them; the
 * MCP server, /tools/invoke, the tool loop and OpenAPI derive from that list.
 */
export type ToolSpec<S extends z.ZodType = z.ZodType> = ToolDeclaration<S> & {
  run: ToolRun<S>;
  /** Refuses raw arguments before `args` parses them (for what the schema would drop silently). */
  screen?: (args: Record<string, unknown>) => void;
};

export function defineTool<S extends z.ZodType>(
  declaration: ToolDeclaration<S>,
  run: ToolRun<S>,
  screen?: ToolSpec<S>["screen"],
): ToolSpec {
  // The run takes its own arguments; the list (TOOL_SPECS) holds them all as the common type.
  return { ...declaration, run, ...(screen ? { screen } : {}) } as ToolSpec;
}
