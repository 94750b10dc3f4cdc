import { z } from "zod";
import { DomainError } from "../../domain/errors";
import { defaultAgentId } from "../../policy/agent-config";
import { agentModelRef } from "../../policy/agent-models";
import { methodParamSchemas } from "../../protocol/gateway";
import type { OperatorScope } from "../../protocol/http";
import { agentParamsSchema } from "../../protocol/methods";
import { SERVER_VERSION } from "../../protocol/server-version";
import { defineMethod, emptyAnswer, openParams } from "../../registry/method";
import type { Slice } from "../../registry/slice";

/**
 * The host: `health`, and honest answers, in the real gateway's shapes, for what the Control UI
 * asks whatever `features.methods` says, about things a hosted tenant does not have here: a host
 * machine and its lanes, exec approvals, skills, worktrees, themes, web search, memory, GitHub
 * identity, user profiles, questions, tasks, plugins, talk, nodes. Each says "none" or "off"
 * truthfully, so the UI shows its empty state instead of an `unknown method` banner or a retry poll.
 */

const READ: OperatorScope = "operator.read";
const ADMIN: OperatorScope = "operator.admin";

/** A feature the Control UI offers that this service does not have: any call is refused, saying so. */
const notAvailable = (scope: OperatorScope, message: string) =>
  defineMethod({
    scope,
    roles: [],
    params: openParams,
    handle: () => {
      throw new DomainError("invalid", message);
    },
  });

/** The one built-in theme (the UI's own default). */
const CLAW_THEME = {
  id: "claw",
  name: "Claw",
  description: "Signature coral red and teal on charcoal or pale surfaces, with Instrument Sans throughout.",
  source: "builtin",
  modes: ["light", "dark"],
};

const CLOUD_WORKERS_UNAVAILABLE =
  "cloud workers are not available on this service: runs happen on Cloudflare, not on worker machines";

const NO_GITHUB_IDENTITY = {
  source: "system-detected",
  credentialKind: "native",
  credentialState: "unavailable",
  account: null,
  gitAuthor: { name: null, email: null },
  evidence: "none",
  accessExpiresAtMs: null,
  refreshState: "not_applicable",
  oauthScopes: [],
  repositoryGrants: "unknown",
};

export const hostSlice: Slice = {
  name: "host",
  methods: {
    health: defineMethod({
      scope: null,
      roles: [],
      params: methodParamSchemas.health,
      handle: () => ({ ok: true, status: "live", ts: Date.now() }),
    }),
    // No host machine: the service runs on Cloudflare's edge, with no lanes or heartbeat of its own.
    "system.info": defineMethod({
      scope: READ,
      roles: [],
      params: openParams,
      handle: ({ ctx }) => ({
        machineName: "Cloudflare Workers",
        hostname: "workers",
        platform: "workerd",
        release: "",
        arch: "",
        osLabel: "Cloudflare Workers",
        port: null,
        nodeVersion: null,
        pid: null,
        processInstanceId: null,
        // Since the gateway object serving this socket first served (hello's snapshot.uptimeMs),
        // kept in its storage so a wake-up from hibernation does not restart it (gateway-start.ts).
        uptimeMs: Date.now() - (ctx.gatewayStartedAt ?? Date.now()),
        cpuCount: null,
        cpuModel: null,
        loadAverage: [],
        memoryTotalBytes: null,
        memoryFreeBytes: null,
        eventLoop: { degraded: false, degradedSinceMs: null, reasons: [], intervalMs: null, delayP99Ms: null },
      }),
    }),
    "diagnostics.lanes": emptyAnswer(() => ({ ts: Date.now(), lanes: [] })),
    "last-heartbeat": emptyAnswer(() => null),
    status: defineMethod({
      scope: READ,
      roles: [],
      params: openParams,
      handle: ({ ctx }) => ({
        runtimeVersion: SERVER_VERSION,
        hostDesktop: { enabled: false, state: "disabled", port: null },
        heartbeat: { defaultAgentId: defaultAgentId(ctx.config), agents: [] },
        channelSummary: [],
        queuedSystemEvents: [],
        degradedSecretOwners: [],
        degradedPlugins: [],
        tasks: {
          total: 0,
          active: 0,
          terminal: 0,
          failures: 0,
          byStatus: { queued: 0, running: 0, succeeded: 0, failed: 0, timed_out: 0, cancelled: 0, lost: 0 },
          byRuntime: {},
        },
      }),
    }),
    // No exec tool here: nothing to approve, nothing granted.
    "exec.approvals.get": emptyAnswer(
      () => ({
        path: "none",
        exists: false,
        file: { version: 1, defaults: {}, agents: {} },
        hash: null,
        resolvedDefaults: { security: "deny", ask: "off", askFallback: "deny", autoAllowSkills: false },
      }),
      // OpenClaw lets only admins read it.
      ADMIN,
    ),
    "approval.history": emptyAnswer(() => ({ items: [] })),
    "exec.approval.grants.list": emptyAnswer(() => ({ grants: [] })),
    "skills.search": emptyAnswer(() => ({ results: [] })),
    "skills.proposals.list": emptyAnswer(() => ({ proposals: [], installedSkills: [] })),
    "worktrees.list": emptyAnswer(() => ({ worktrees: [] })),
    "users.list": emptyAnswer(() => ({ profiles: [] })),
    "themes.list": emptyAnswer(() => ({
      current: { id: CLAW_THEME.id, mode: "system", scope: "profile", overrides: {} },
      theme: CLAW_THEME,
      themes: [CLAW_THEME],
    })),
    "webSearch.status": defineMethod({
      scope: READ,
      roles: [],
      params: agentParamsSchema,
      handle: ({ ctx, params }) => {
        const agentId = params.agentId ?? defaultAgentId(ctx.config);
        const ref = agentModelRef(ctx.config, agentId);
        return {
          enabled: false,
          provider: null,
          agentId,
          model: { provider: ref.provider, id: ref.model, runtime: "unknown", runtimeLabel: "Not resolved" },
          providers: [],
          // OpenClaw's route for search that is off; the Search page renders it (and waits without it).
          route: {
            kind: "disabled",
            label: "Search disabled",
            testable: false,
            reason: "Web search is not available on this service: agents here have no web search tool.",
          },
        };
      },
    }),
    "tools.github.status": defineMethod({
      scope: READ,
      roles: [],
      params: z.object({ agentId: z.string().max(64).optional(), selectedScope: z.string().optional() }),
      handle: ({ ctx, params }) => {
        const scope = params.selectedScope ?? "system";
        return {
          agentId: params.agentId ?? defaultAgentId(ctx.config),
          selectedScope: scope,
          selected: { scope, configured: false, identity: NO_GITHUB_IDENTITY },
          effective: NO_GITHUB_IDENTITY,
        };
      },
    }),
    // Ask OpenClaw (the setup assistant of a local install) and device pairing: refused, with why,
    // instead of the UI's "Update the Gateway" or an unknown method.
    "openclaw.chat": notAvailable(
      ADMIN,
      "openclaw.chat is not available on this gateway: this hosted service has no OpenClaw setup assistant; use Settings and the config instead",
    ),
    "device.pair.setupCode": notAvailable(
      ADMIN,
      "device pairing is not available on this gateway: clients connect with an operator token (Settings › Gateway)",
    ),
    // No agent memory here.
    "doctor.memory.status": defineMethod({
      scope: READ,
      roles: [],
      params: agentParamsSchema,
      // OpenClaw's answer when no memory search manager exists (the Memory page then says so
      // instead of waiting: a dreaming block without its phases kept it on "Waking memory…").
      handle: ({ ctx, params }) => ({
        agentId: params.agentId ?? defaultAgentId(ctx.config),
        searchRuntimeRegistered: false,
        embedding: { ok: false, error: "agent memory is not available on this service" },
      }),
    }),
    "migrations.memory.plan": defineMethod({
      scope: ADMIN,
      roles: [],
      params: agentParamsSchema,
      handle: ({ ctx, params }) => ({
        agentId: params.agentId ?? defaultAgentId(ctx.config),
        workspace: "",
        providers: [],
      }),
    }),
    // Control UI pages for features this service does not have (questions, tasks, approvals, …).
    "question.list": emptyAnswer(() => ({ questions: [] })),
    "tasks.list": emptyAnswer(() => ({ tasks: [] })),
    "progressCard.get": emptyAnswer(() => ({ card: null })),
    "sessions.branches.list": emptyAnswer(() => ({ branches: [] })),
    "sessions.companion.state": emptyAnswer(() => ({ exchanges: [] })),
    "sessions.observer.visibility": emptyAnswer(() => ({ ok: true })),
    "exec.approval.list": emptyAnswer(() => []),
    "plugin.approval.list": emptyAnswer(() => []),
    "openclaw.approval.list": emptyAnswer(() => []),
    "update.status": emptyAnswer(() => ({ sentinel: null, updateAvailable: null }), "operator.admin"),
    "talk.catalog": emptyAnswer(() => ({
      modes: [],
      transports: [],
      brains: [],
      speech: { providers: [] },
      transcription: { ready: false, providers: [] },
      realtime: { ready: false, providers: [] },
    })),
    // No cloud workers: the Cloud workers page asks for the profiles this gateway advertises and
    // shows the refusal ("Could not load advertised profiles: …") instead of an empty catalog.
    "environments.list": defineMethod({
      scope: READ,
      roles: [],
      params: z.object({ projection: z.string().max(64).optional() }),
      handle: ({ params }) => {
        if (params.projection === "profiles") throw new DomainError("invalid", CLOUD_WORKERS_UNAVAILABLE);
        return { environments: [] };
      },
    }),
    "node.list": emptyAnswer(() => ({ ts: Date.now(), nodes: [] })),
    "device.pair.list": emptyAnswer(() => ({ pending: [], paired: [] })),
    "plugins.list": emptyAnswer(() => ({ plugins: [] })),
    "plugins.catalog.browse": emptyAnswer(() => ({ items: [] })),
    "skills.library.list": emptyAnswer(() => ({ entries: [], multipleProfiles: false, canManageWorkspace: false })),
    "artifacts.list": emptyAnswer(() => ({ artifacts: [] })),
    "system-presence": emptyAnswer(() => []),
  },
};
