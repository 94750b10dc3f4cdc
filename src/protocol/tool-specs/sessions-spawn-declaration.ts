import { z } from "zod";
import { looseBoolean, looseNumber } from "../tool-args";
import { defineDeclaration, metaText } from "./declaration";

export const SPAWN_ROUTING_PARAMS = [
  "target",
  "transport",
  "channel",
  "to",
  "threadId",
  "thread_id",
  "replyTo",
  "reply_to",
] as const;

export const sessionsSpawnArgsSchema = z.object({
  task: z.string().trim().min(1, "task required").max(200_000),
  label: z.string().trim().min(1).max(512).optional(),
  runtime: z.enum(["subagent", "acp"]).optional(),
  agentId: z.string().trim().min(1).max(128).optional(),
  resumeSessionId: z.string().optional(),
  model: z.string().trim().min(1).max(256).optional(),
  thinking: z.string().trim().min(1).max(32).optional(),
  cwd: z.string().optional(),
  runTimeoutSeconds: looseNumber.optional(),
  timeoutSeconds: looseNumber.optional(),
  thread: looseBoolean.optional(),
  mode: z.enum(["run", "session"]).optional(),
  cleanup: z.enum(["delete", "keep"]).optional(),
  sandbox: z.enum(["inherit", "require"]).optional(),
  streamTo: z.enum(["parent"]).optional(),
  attachments: z
    .array(
      z.object({
        name: z.string(),
        content: z.string(),
        encoding: z.enum(["utf8", "base64"]).optional(),
        mimeType: z.string().max(256).optional(),
      }),
    )
    .optional(),
  attachAs: z.object({ mountPath: z.string().max(1024).optional() }).optional(),
});

/** `sessions_spawn`: what it is (tools/sessions-spawn.ts runs it). */
export const sessionsSpawnDeclaration = defineDeclaration({
  name: "sessions_spawn",
  args: sessionsSpawnArgsSchema,
  title: "Spawn a sub-agent",
  description:
    "Start a sub-agent on a task in a new isolated session. It runs in the background; its result is announced to the calling session when it finishes. Returns the child session key and run id at once.",
  params: { task: "What the sub-agent should do.", agentId: "Target agent (see agents_list). Default: the caller's." },
  readOnly: false,
  label: "Sub-agent",
  sessionTool: false,
  httpDenied: true,
  meta: (args) => metaText(args.label) ?? metaText(args.task)?.slice(0, 80),
  model: {
    rank: 3,
    summary: "Spawn hidden subagent (ephemeral) or visible work session (durable).",
    section: "sessions",
    profiles: ["coding", "messaging"],
    groups: ["group:sessions"],
    subagentRemoved: "at-depth-cap",
    schema: {
      description:
        'Spawn child session; default `runtime="subagent"`. `mode="run"` one-shot background. `agentId` targets a configured agent (see agents_list); `model` overrides its model; `cleanup` delete|keep hidden child session; `sandbox` inherit|require. Default to a hidden subagent for internal QA, research, coding, review, tests, and parallel work supporting the current task; omit `visible` or set it false, and report results through the parent. `visible=true`: durable visible session. Use only when the user requests a separate session or needs to revisit and steer the work independently. Shows in web UI sidebar; works without UI: announcing runs report back, progress checkable. `group` places it in a custom sidebar group (a new name creates the group); omission or an empty string leaves it ungrouped. Subagent only; omit `mode` (`mode="run"` is also accepted), `thread`, `thinking`, and `lightContext`; `attachments=[]` and omitted/blank `attachAs.mountPath` are accepted, but nonempty attachment staging is unsupported; inherits the caller tool-policy ceiling; select a registered project with `projectId` or a managed GitHub clone with `projectGitUrl` (mutually exclusive with each other and `cwd`); may check out a git worktree via `worktree`/`worktreeName`/`worktreeBaseRef`. When its accepted result includes `sessionUrl`, channel acknowledgements put the session URL on the first line and `Owner: <label>` on the second line. Omit `placement` or use `{kind:"local"}` for local execution. `{kind:"profile",profileId,os?,machineClass?}` selects a configured cloud profile and requires `visible=true` and `worktree=true`. Cloud placement creates first, dispatches, then starts the task; failures retain the child for inspection, never fall back locally. Session listing/addressing obeys `tools.sessions.visibility` (all: all sessions, cross-agent per tools.agentToAgent).  Inherits parent workspace. Native task arrives in the child\'s initial `[Subagent Task]` message. Native: explicit context="isolated" starts clean; context="fork" copies requester transcript and requires the same agent. Omitted context is isolated. A PR/report, long runtime, or isolated worktree alone does not justify a sidebar session. A request for a subagent does not request a separate session. No spawn for quick lookup/single read. Check spawns via `subagents`/`sessions_history`. After spawn, do non-overlap work; follow the receipt\'s completion mode. Default to ordinary spawn for one or a few children. Reserve `collect=true` (swarm) for large parallel fan-out (several similar children, about five or more). Collectors send no completion notification and cannot be steered; explicitly collect their results; structured result per `outputSchema`; `groupId` groups a batch; await with agents_wait.',
      parameters: {
        type: "object",
        required: ["task"],
        properties: {
          task: { type: "string" },
          taskName: {
            type: "string",
            description: "Stable later-target alias; starts lowercase letter; then lowercase/digit/_/-.",
          },
          label: { type: "string", description: "Short task title shown in UI lists; name the work, not the agent." },
          runtime: { enum: ["subagent"], type: "string", description: 'Runtime; visible=true requires "subagent".' },
          agentId: { type: "string" },
          model: { type: "string" },
          runTimeoutSeconds: {
            type: "integer",
            minimum: 0,
            description:
              "Per-run timeout in seconds; overrides the configured subagent default. Zero disables the timeout.",
          },
          thinking: { type: "string", description: "Thinking override; unavailable with visible=true." },
          cwd: {
            type: "string",
            description:
              "Child working directory. Visible paths outside configured agent workspaces require operator.admin. Mutually exclusive with projectId/projectGitUrl. With no source selector and worktree=true: inherit the same-agent parent managed repository; otherwise use the target agent workspace.",
          },
          mode: {
            enum: ["run"],
            type: "string",
            description: '"run" one-shot. Visible sessions accept omitted/default "run" and remain persistent.',
          },
          cleanup: {
            enum: ["delete", "keep"],
            type: "string",
            description: "Hidden session cleanup; visible=true always keeps the session.",
          },
          expectsCompletionMessage: {
            type: "boolean",
            description: "false: fire-and-forget; requester gets no completion handoff when the child finishes.",
          },
          completionTarget: {
            enum: ["parent"],
            type: "string",
            description:
              "parent: return results in a private requester turn; no automatic channel delivery. Native hidden run only; unavailable with ACP, collect, visible, thread, session mode, or expectsCompletionMessage=false.",
          },
          sandbox: {
            enum: ["inherit", "require"],
            type: "string",
            description: '"inherit" parent sandbox policy; "require" fails unless child is sandboxed.',
          },
          context: {
            enum: ["isolated", "fork"],
            type: "string",
            description:
              'Native: explicit context="isolated" starts clean; context="fork" copies requester transcript and requires the same agent. Omitted context is isolated.',
          },
          lightContext: {
            type: "boolean",
            description: "Light bootstrap; subagent only; unavailable with visible=true.",
          },
          fastMode: { anyOf: [{ type: "boolean" }, { type: "string", const: "auto" }] },
          placement: {
            anyOf: [
              {
                type: "object",
                required: ["kind"],
                properties: { kind: { type: "string", const: "local" } },
                additionalProperties: false,
              },
              {
                type: "object",
                required: ["kind", "profileId"],
                properties: {
                  kind: { type: "string", const: "profile" },
                  profileId: { type: "string", minLength: 1, maxLength: 256, pattern: "^\\S(?:.*\\S)?$" },
                  machineClass: { type: "string", minLength: 1, maxLength: 128 },
                  os: { type: "string", minLength: 1, maxLength: 64 },
                },
                additionalProperties: false,
              },
            ],
            description:
              'Execution placement: omitted or {kind: "local"} uses local execution for native and ACP runs. {kind: "profile", profileId, os?, machineClass?} selects a configured cloud profile and requires visible=true and worktree=true. Never supply placeholder selectors. Omitted cloud selectors use profile defaults; the first task starts only after cloud dispatch.',
          },
          visible: {
            type: "boolean",
            description:
              "Persistent sidebar session only when the user requests a separate session or needs to revisit and steer it independently. Internal QA/coding/review/test workers: omit or false. Subagent runtime only; default run mode and empty attachments accepted; no thread/thinking/lightContext or attachment staging.",
          },
          group: {
            type: "string",
            description:
              "Custom sidebar group for a visible session; a new name creates the group. Omit or pass an empty string to leave it ungrouped.",
          },
          projectId: {
            type: "string",
            description: "Registered project for a visible session; mutually exclusive with projectGitUrl and cwd.",
          },
          projectGitUrl: {
            type: "string",
            description:
              "GitHub HTTPS or git@github.com repository URL for a visible session's managed clone; mutually exclusive with projectId and cwd. Local paths and file URLs are not accepted.",
            maxLength: 2048,
          },
          worktree: { type: "boolean", description: "Visible session worktree" },
          worktreeName: { type: "string", description: "Worktree name" },
          worktreeBaseRef: { type: "string", description: "Worktree base ref" },
          attachments: {
            type: "array",
            items: {
              type: "object",
              required: ["name", "content"],
              properties: {
                name: { type: "string" },
                content: { type: "string" },
                encoding: { enum: ["utf8", "base64"], type: "string" },
                mimeType: { type: "string" },
              },
            },
            maxItems: 50,
            description: "Inline snapshots; visible=true accepts only an empty array.",
          },
          attachAs: {
            type: "object",
            properties: { mountPath: { type: "string" } },
            description: "Attachment mount hint; visible=true accepts only an omitted or blank mountPath.",
          },
          collect: {
            type: "boolean",
            description:
              "Swarm collector child for large parallel fan-out, not one or a few children; no completion notification.",
          },
          outputSchema: {
            type: "object",
            patternProperties: { "^.*$": {} },
            description: "JSON Schema for the child's structured result; requires collect=true.",
          },
          groupId: { type: "string", description: "Groups parallel collector children; requires collect=true." },
        },
      },
    },
    /** No "(see agents_list)" pointer: a sub-agent has no agents_list. */
    subagentDescription:
      'Spawn child session; default `runtime="subagent"`. `mode="run"` one-shot background. `agentId` targets a configured agent; `model` overrides its model; `cleanup` delete|keep hidden child session; `sandbox` inherit|require. Default to a hidden subagent for internal QA, research, coding, review, tests, and parallel work supporting the current task; omit `visible` or set it false, and report results through the parent. `visible=true`: durable visible session. Use only when the user requests a separate session or needs to revisit and steer the work independently. Shows in web UI sidebar; works without UI: announcing runs report back, progress checkable. `group` places it in a custom sidebar group (a new name creates the group); omission or an empty string leaves it ungrouped. Subagent only; omit `mode` (`mode="run"` is also accepted), `thread`, `thinking`, and `lightContext`; `attachments=[]` and omitted/blank `attachAs.mountPath` are accepted, but nonempty attachment staging is unsupported; inherits the caller tool-policy ceiling; select a registered project with `projectId` or a managed GitHub clone with `projectGitUrl` (mutually exclusive with each other and `cwd`); may check out a git worktree via `worktree`/`worktreeName`/`worktreeBaseRef`. When its accepted result includes `sessionUrl`, channel acknowledgements put the session URL on the first line and `Owner: <label>` on the second line. Omit `placement` or use `{kind:"local"}` for local execution. `{kind:"profile",profileId,os?,machineClass?}` selects a configured cloud profile and requires `visible=true` and `worktree=true`. Cloud placement creates first, dispatches, then starts the task; failures retain the child for inspection, never fall back locally. Session listing/addressing obeys `tools.sessions.visibility` (all: all sessions, cross-agent per tools.agentToAgent).  Inherits parent workspace. Native task arrives in the child\'s initial `[Subagent Task]` message. Native: explicit context="isolated" starts clean; context="fork" copies requester transcript and requires the same agent. Omitted context is isolated. A PR/report, long runtime, or isolated worktree alone does not justify a sidebar session. A request for a subagent does not request a separate session. No spawn for quick lookup/single read. Check spawns via `subagents`/`sessions_history`. After spawn, do non-overlap work; follow the receipt\'s completion mode. Default to ordinary spawn for one or a few children. Reserve `collect=true` (swarm) for large parallel fan-out (several similar children, about five or more). Collectors send no completion notification and cannot be steered; explicitly collect their results; structured result per `outputSchema`; `groupId` groups a batch; await with agents_wait.',
  },
});
