import type { z } from "zod";
import type { TenantContext, TenantRole } from "../domain/context";
import type { ToolDeclaration } from "../protocol/tool-specs/tool-declarations";
import type { Requester } from "./requester";
import type { ToolCall, ToolResult } from "./result";

/**
 * A tool's run: its context carries only the tenant roles the tool declared (`ctx.tenant` of a
 * tool declaring `["index"]` has no `revokeToken`), so calling another role fails typecheck.
 */
export type ToolRun<S extends z.ZodType, Role extends TenantRole = TenantRole> = (
  ctx: TenantContext<Role>,
  requester: Requester,
  args: z.infer<S>,
  call: ToolCall,
) => Promise<ToolResult> | ToolResult;

/**
 * One session tool, whole: its declaration (arguments, the model's schema, descriptions, label,
 * title, groups: protocol/tool-specs/), the tenant roles it uses and its run. TOOL_SPECS
 * (./catalog.ts) lists them; the MCP server, /tools/invoke, the tool loop and OpenAPI derive
 * from that list.
 */
export type ToolSpec<S extends z.ZodType = z.ZodType, Role extends TenantRole = TenantRole> = ToolDeclaration<S> & {
  /** The tenant object's roles the run may call (domain/context.ts). */
  roles: readonly Role[];
  run: ToolRun<S, Role>;
  /** Refuses raw arguments before `args` parses them (for what the schema would drop silently). */
  screen?: (args: Record<string, unknown>) => void;
};

/**
 * A tool from its declaration, the roles its run uses (`[]`: none) and the run, which is
 * typed by those roles alone (its context is `TenantContext<Role>`).
 */
export function defineTool<S extends z.ZodType, const Name extends string, const Role extends TenantRole = never>(
  declaration: ToolDeclaration<S> & { name: Name },
  roles: readonly Role[],
  run: NoInfer<ToolRun<S, Role>>,
  screen?: ToolSpec<S>["screen"],
): ToolSpec & { name: Name } {
  // The run takes its own arguments and roles; the list holds them all as the common type
  // (a full context is a narrower one's subtype: TenantContext is contravariant in its roles).
  return { ...declaration, roles, run, ...(screen ? { screen } : {}) } as unknown as ToolSpec & { name: Name };
}
