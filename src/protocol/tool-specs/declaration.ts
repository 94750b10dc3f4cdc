import type { z } from "zod";
import type { ToolPolicyConfig } from "../config";

/**
 * What a session tool is, apart from how it runs: its arguments, its descriptions for each
 * reader, its label and groups, and how OpenClaw offers it to a model. One declaration per tool
 * (this folder); `tools/` adds the `run` to make its ToolSpec. It lives down here so that the
 * pure policies (the offer, the inventory), the renderers and the run engine derive their
 * tables from it without importing the application layer.
 */
export type ToolDeclaration<S extends z.ZodType = z.ZodType> = {
  name: string;
  /** The arguments every entry point validates (POST /tools/invoke, MCP, the tool loop). */
  args: S;
  /** MCP's tools/list title and description (words for an agent or a person, not OpenClaw's). */
  title: string;
  description: string;
  /** MCP's description of each argument, added to the JSON Schema derived from `args`. */
  params?: Record<string, string>;
  /** Changes nothing: `operator.read` suffices where scopes are checked per tool. */
  readOnly: boolean;
  /** OpenClaw's display label (tool-display): Control UI rows, `tools.effective`. */
  label: string;
  /** A session tool: sub-agents' run tokens lack it unless they orchestrate (policy/subagent-tools.ts). */
  sessionTool: boolean;
  /** In OpenClaw's default HTTP deny list: served over HTTP only when `gateway.tools.allow` names it. */
  httpDenied: boolean;
  /** May wait long for its answer (a reply, new messages): MCP streams it as SSE when the client accepts that. */
  waits?: true;
  /** The detail after the label on an activity row (`Session History <key>`), from the call's arguments. */
  meta?: (args: Record<string, unknown>) => string | undefined;
  /** How OpenClaw offers the tool to a model; absent for this service's own tools (never offered). */
  model?: ModelOffer;
};

/** OpenClaw's catalog section a tool is listed in (tool-catalog.ts). */
export type ToolSection = "sessions" | "agents";

export type ModelOffer = {
  /** Position in OpenClaw's tool order (the order a model is offered them). */
  rank: number;
  /**
   * Description and JSON Schema parameters exactly as OpenClaw 2026.9.6 sends them
   * (tools.toolSearch=false; shared/peer/tool-loop/tool-schemas.json, minus TypeBox's stray
   * "~optional" marker). Data, not code: regenerate from the recording rather than editing.
   */
  schema: { description: string; parameters: Record<string, unknown> };
  /** The description a sub-agent gets instead, when OpenClaw words it differently for one. */
  subagentDescription?: string;
  /** OpenClaw's catalog description (its tool display summary). */
  summary: string;
  section: ToolSection;
  /** The built-in profiles that include it (OpenClaw's `profiles`). */
  profiles: NonNullable<ToolPolicyConfig["profile"]>[];
  /** OpenClaw's `group:*` names that include it, besides `group:openclaw` (all of them). */
  groups: string[];
  /** Sub-agents lose it always, or only at the spawn depth cap (a leaf cannot orchestrate). */
  subagentRemoved: "always" | "at-depth-cap";
};

/** A declaration, its name kept as a literal (the tool names' type: tool-declarations.ts `ToolName`). */
export const defineDeclaration = <S extends z.ZodType, const Name extends string>(
  declaration: ToolDeclaration<S> & { name: Name },
) => declaration;

/** An argument as activity-row text: strings and numbers only. */
export function metaText(value: unknown): string | undefined {
  return typeof value === "string" || typeof value === "number" ? String(value) : undefined;
}

export const SESSION_KEY_PARAM = 'A session key ("main", "agent:<agentId>:<name>", …), or a sessionId.';
