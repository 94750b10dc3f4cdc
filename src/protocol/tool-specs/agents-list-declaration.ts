import { z } from "zod";
import { defineDeclaration } from "./declaration";

export const agentsListArgsSchema = z.object({});

/** `agents_list`: what it is (tools/agents-list.ts runs it). */
export const agentsListDeclaration = defineDeclaration({
  name: "agents_list",
  args: agentsListArgsSchema,
  title: "List agents",
  description: "The agent ids this caller may target with sessions_spawn (its own agent first).",
  readOnly: true,
  label: "Agents",
  sessionTool: false,
  httpDenied: false,
  model: {
    rank: 5,
    summary: "List agents",
    section: "agents",
    profiles: [],
    groups: ["group:agents"],
    subagentRemoved: "always",
    schema: {
      description:
        'List configured agent ids with name/model/runtime metadata, allowed as `sessions_spawn(runtime:"subagent")` targets.',
      parameters: { type: "object", properties: {} },
    },
  },
});
