// The feature move's mapping (read by scripts/move/move-features.mjs; the target layout is
// described in docs/architecture.md, "The feature folders"). Each entry is `[from, to]`,
// repository-relative: a folder ends in "/" and takes every file below it (files added later
// too); a file entry beats its folder's. A path named nowhere stays where it is.
//
// The rule behind src/: a feature (sessions, runs, config, automations, secrets, console,
// channels, hooks, mcp with its oauth, openai, usage, host) keeps in `src/features/<feature>/` its
// surface (slice, methods, routes, OpenAPI operations), the rules only it uses, its stores and its
// object. What two features or an engine use stays below, shared: a `domain/` operation used by
// one feature moves into it, one used by several stays in `domain/`; a `protocol/` schema read by
// one feature only moves with it; the engines (`runs/`, `flows/`, `spawn/`, `delivery/`,
// `timers/`, `pending/`, `session/`, `tenant/`, `ledger/`, `metering/`, `secrets/`), the
// transports (`http/`, `gateway/`), the session tools every door calls (`tools/`) and the leaves
// (`model/`, `contracts/`, `protocol/`, `keys/`, `policy/`, `render/`, `storage/`, `util/`,
// `auth/`, `registry/`) keep their folders.

/** src/: each feature into its one folder; the twin folders (`cron/`, `hooks/`, …) disappear. */
export const SOURCE_MOVES = [
  // automations: was features/automations/ + cron/ + domain/cron.ts + protocol/cron.ts + contracts/scheduler-api.ts
  ["src/cron/", "src/features/automations/"],
  ["src/domain/cron.ts", "src/features/automations/automations.ts"],
  ["src/protocol/cron.ts", "src/features/automations/cron-schemas.ts"],
  ["src/contracts/scheduler-api.ts", "src/features/automations/scheduler-api.ts"],
  // hooks: was features/hooks/hooks-slice.ts (5 lines) beside hooks/
  ["src/hooks/", "src/features/hooks/"],
  // channels: the inbox object, the adapter contract, the platforms, beside the slice's methods and routes
  ["src/channels/", "src/features/channels/"],
  ["src/protocol/msteams.ts", "src/features/channels/msteams/bot-framework-schemas.ts"],
  ["src/contracts/channel-inbox-api.ts", "src/features/channels/channel-inbox-api.ts"],
  // mcp: the endpoint (its authorization server, oauth/, stays below: the admin routes revoke
  // the grants a revoked token approved)
  ["src/mcp/", "src/features/mcp/"],
  // openai: the door, its completions rules, its wire schemas
  ["src/openai/", "src/features/openai/"],
  ["src/domain/completions.ts", "src/features/openai/completions.ts"],
  ["src/protocol/openai-schemas.ts", "src/features/openai/openai-schemas.ts"],
  // sessions: the rules only the sessions surface calls (the session tools stay in tools/: four doors call them)
  ["src/domain/sessions.ts", "src/features/sessions/sessions.ts"],
  ["src/domain/session-marks.ts", "src/features/sessions/session-marks.ts"],
  ["src/domain/session-reference.ts", "src/features/sessions/session-reference.ts"],
  ["src/domain/transfer.ts", "src/features/sessions/transfer.ts"],
  // runs: the run reads only its routes use (domain/runs.ts stays: channels, hooks, automations start runs)
  ["src/domain/run-lookup.ts", "src/features/runs/run-lookup.ts"],
  // config and agents
  ["src/domain/agents.ts", "src/features/config/agents.ts"],
  // console: what only the Control UI's methods read
  ["src/domain/agent-tools.ts", "src/features/console/agent-tools.ts"],
  ["src/domain/chat-startup.ts", "src/features/console/chat-startup.ts"],
  ["src/domain/ledger.ts", "src/features/console/usage-and-logs.ts"],
  ["src/domain/search.ts", "src/features/console/search.ts"],
];

/**
 * `[from, to]` for each file of a tier, foldered by area: `{ area: ["name" or ["name", "new name"]] }`
 * puts `<fromDir><name>` at `<toDir><area>/<new name or name>`.
 */
const tier = (fromDir, toDir, areas) =>
  Object.entries(areas).flatMap(([area, names]) =>
    names.map((name) => {
      const [from, to] = Array.isArray(name) ? name : [name, name];
      return [`${fromDir}${from}`, `${toDir}${area}/${to}`];
    }),
  );

/**
 * test/: each tier's files foldered after what they test, the area named as src/ names it (a
 * feature's folder name, or the shared folder's: `session/` is the session object, `sessions/`
 * the feature). Renamed: the names that lie (`registry.test.ts` tests the session index) and the
 * workerd files whose name repeated a Node test's of another subject. A name repeats across tiers
 * only on purpose: `timers` (the engine in Node, the same table on a real object's SQLite).
 * test/e2e/ stays flat: its names already start with the area (`channels-…`, `gateway-…`,
 * `control-ui-…`, `openai-…`), `npm run test:e2e -- <word>` picks by path, and every file finds the
 * repository and its peers from its own place (`../..`).
 */
export const TEST_MOVES = [
  // The workerd tier (vitest.config.ts): test/*.test.ts → test/workerd/<area>/
  ...tier("test/", "test/workerd/", {
    auth: ["auth-grants.test.ts"],
    automations: [["cron.test.ts", "scheduler.test.ts"]],
    channels: [
      "channel-commands.test.ts",
      "channel-echo.test.ts",
      "channel-secret-hosts.test.ts",
      "channels-bot-messages.test.ts",
      "channels-context.test.ts",
      "channels-debounce.test.ts",
      "channels-media.test.ts",
      "channels-pairing-cap.test.ts",
      "channels-setup-wizard.test.ts",
      "channels-slack-threads.test.ts",
      ["channels-slack.test.ts", "channels-slack-request-url.test.ts"],
    ],
    config: [
      "config-limits.test.ts",
      "config-patch.test.ts",
      ["config-redaction.test.ts", "config-read-redaction.test.ts"],
      "config.test.ts",
      "outbound-guard.test.ts",
    ],
    console: ["console.test.ts", "control-ui-truth.test.ts", "search-budget.test.ts"],
    gateway: [
      "gateway-cache.test.ts",
      "gateway-device-tamper.test.ts",
      "gateway-handshake-fidelity.test.ts",
      "gateway-hostile.test.ts",
      "gateway-hubs.test.ts",
      "gateway-origin.test.ts",
      "gateway-preauth.test.ts",
      "gateway-sessions-fidelity.test.ts",
      "gateway-validation-fidelity.test.ts",
      "gateway.test.ts",
    ],
    hooks: ["hooks-wake-route.test.ts", "hooks.test.ts"],
    http: [
      "admin-default-tenant.test.ts",
      "admin.test.ts",
      "browser-access.test.ts",
      ["control-ui.test.ts", "control-ui-served.test.ts"],
      "hostile-http.test.ts",
      "ingress-body-limits.test.ts",
      "openapi.test.ts",
      "tenants.test.ts",
      "unknown-tenant.test.ts",
    ],
    mcp: ["mcp-hostile.test.ts", "mcp-oauth.test.ts", "mcp.test.ts"],
    metering: ["metering.test.ts"],
    openai: [["openai.test.ts", "openai-routes.test.ts"]],
    pending: ["pending-sessions.test.ts"],
    runs: [
      ["run-admission.test.ts", "internal-run-admission.test.ts"],
      "run-fidelity.test.ts",
      "run-status.test.ts",
      "runs.test.ts",
      "tool-loop-aborts.test.ts",
      ["tool-loop.test.ts", "tool-loop-openai.test.ts"],
    ],
    secrets: [
      ["deployment-keys.test.ts", "deployment-key-grants.test.ts"],
      "secret-echo.test.ts",
      "secret-store.unconfigured.test.ts",
      "secrets.test.ts",
    ],
    session: [
      "index-coalescing.test.ts",
      "session-size.test.ts",
      "sse.test.ts",
      "transcript-bytes-paths.test.ts",
      "transcripts.test.ts",
      "turn-rows.test.ts",
    ],
    sessions: [
      "list-paging.test.ts",
      ["registry.test.ts", "session-index.test.ts"],
      "sessions-send-missing.test.ts",
      "sessions-send.test.ts",
      "sessions-spawn.test.ts",
      "tenant-input-limits.test.ts",
      "transfer.test.ts",
    ],
    storage: ["migrations.test.ts", "fixtures/session-schema-v17.sql", "fixtures/tenant-schema-v16.sql"],
    tenant: ["inject-handoff.test.ts", ["limits.test.ts", "tenant-limits.test.ts"]],
    timers: ["timers.test.ts"],
    tools: ["hostile-tools.test.ts", "tools.test.ts"],
  }),
  // The workerd tier's helpers, beside its files.
  ["test/helpers.ts", "test/workerd/support/helpers.ts"],
  ["test/ws-helpers.ts", "test/workerd/support/ws-helpers.ts"],
  ["test/slack-helpers.ts", "test/workerd/support/slack-helpers.ts"],
  ["test/telegram-helpers.ts", "test/workerd/support/telegram-helpers.ts"],
  ["test/tool-loop-tenant.ts", "test/workerd/support/tool-loop-tenant.ts"],
  ["test/warm-worker.ts", "test/workerd/support/warm-worker.ts"],
  ["test/provided-context.d.ts", "test/workerd/support/provided-context.d.ts"],
  ["test/raw-imports.d.ts", "test/workerd/support/raw-imports.d.ts"],
  // The Node tier (vitest.unit.config.ts): test/unit/*.test.ts → test/unit/<area>/ (support/ and shims/ stay)
  ...tier("test/unit/", "test/unit/", {
    auth: ["access-grant.test.ts", "grant-cache.test.ts"],
    automations: [["cron.test.ts", "schedule.test.ts"]],
    channels: [
      "channel-debounce.test.ts",
      "channel-inbox.test.ts",
      "progress-draft.test.ts",
      "typing-keepalive.test.ts",
      "channels-googlechat-ingress.test.ts",
      "channels-googlechat-outbound.test.ts",
      "channels-googlechat-sender.test.ts",
      "channels-googlechat.test.ts",
      "channels-line-served.test.ts",
      "channels-line.test.ts",
      "channels-msteams.test.ts",
      "channels-slack.test.ts",
      "channels-telegram.test.ts",
      "channels-whatsapp.test.ts",
      "inbound-envelope.test.ts",
      "inbound-media.test.ts",
      "platforms.test.ts",
      "send-health.test.ts",
      "slack-media-text.test.ts",
      "telegram-buttons-commands.test.ts",
      "telegram-media-text.test.ts",
    ],
    console: [["ledger.test.ts", "usage-and-logs.test.ts"]],
    delivery: ["outbox.test.ts"],
    domain: ["chat-command-texts.test.ts", "context-builders.test.ts"],
    flows: ["a2a-flow-runs.test.ts", "a2a-flow.test.ts"],
    gateway: [
      "fanout.test.ts",
      "gated-runs.test.ts",
      "hub-relay.test.ts",
      "hub-routing.test.ts",
      "liveness.test.ts",
      "method-scopes.test.ts",
      "preauth.test.ts",
      "session-mutation-targets.test.ts",
    ],
    hooks: [["hooks.test.ts", "hook-prompt.test.ts"]],
    http: ["control-ui.test.ts"],
    keys: ["session-key.test.ts"],
    ledger: ["cloudflare-prices.test.ts", "usage-event.test.ts"],
    metering: ["object-meter.test.ts"],
    model: ["message-limits.test.ts"],
    openai: ["openai-round-trips.test.ts", "openai.test.ts"],
    pending: ["pending-claim.test.ts"],
    policy: [
      "absent-config-features.test.ts",
      "bound-credential.test.ts",
      "browser-origin.test.ts",
      "config-bounds.test.ts",
      "flow-steps.test.ts",
      "outbound-url.test.ts",
      "sandbox.test.ts",
      "send-policy.test.ts",
      ["tenant-limits.test.ts", "limit-rules.test.ts"],
      "tool-inventory.test.ts",
      "tool-offer.test.ts",
      "visibility.test.ts",
    ],
    registry: ["slices.test.ts"],
    scripts: ["check-layers.test.ts"],
    render: ["config-redaction.test.ts", "sanitize.test.ts"],
    runs: [
      "delta-throttle.test.ts",
      "deltas.test.ts",
      "run-admission.test.ts",
      "run-lifecycle.test.ts",
      "runner-images.test.ts",
      "tool-loop.test.ts",
      "upstream-failure.test.ts",
    ],
    secrets: ["deployment-keys.test.ts", "redact-credentials.test.ts"],
    session: [
      "followers.test.ts",
      "publish-window.test.ts",
      "publisher.test.ts",
      "session-entry-writes.test.ts",
      "transcript-quota.test.ts",
    ],
    spawn: ["spawn-driver.test.ts"],
    tenant: ["held-index-rows.test.ts", "in-process-ports.test.ts", "list-cursors.test.ts"],
    timers: ["timers.test.ts"],
    tools: ["meter-lease.test.ts", "sessions-send-depth.test.ts", "sessions-send-reads.test.ts", "tool-specs.test.ts"],
    util: ["jwt-rs256.test.ts", "wait-text.test.ts"],
  }),
];

export const MOVES = [...SOURCE_MOVES, ...TEST_MOVES];

/** The workerd areas a file's name may start with (`gateway-…`), or the area its prefix means. */
const AREA_PREFIXES = {
  auth: "auth",
  automations: "automations",
  automation: "automations",
  cron: "automations",
  channels: "channels",
  channel: "channels",
  telegram: "channels",
  slack: "channels",
  config: "config",
  console: "console",
  gateway: "gateway",
  hooks: "hooks",
  hook: "hooks",
  admin: "http",
  mcp: "mcp",
  oauth: "mcp",
  metering: "metering",
  usage: "usage",
  openai: "openai",
  pending: "pending",
  run: "runs",
  runs: "runs",
  runner: "runs",
  secret: "secrets",
  secrets: "secrets",
  session: "session",
  sessions: "sessions",
  tenant: "tenant",
  timers: "timers",
  tool: "tools",
  tools: "tools",
};

/** The area a test file's name starts with, or undefined. */
const areaOfName = (name) => {
  const prefix = Object.keys(AREA_PREFIXES)
    .filter((word) => name.startsWith(`${word}-`) || name.startsWith(`${word}.`))
    .sort((a, b) => b.length - a.length)[0];
  return prefix && AREA_PREFIXES[prefix];
};

/**
 * Where a file no entry names goes, or undefined (it stays). A workerd file added at test/'s root
 * after this mapping was written must move, or the tier's glob (test/workerd/**) would skip it:
 * it goes to the area its name starts with, else to test/workerd/unsorted/ (printed: place it).
 * A Node test at test/unit/'s root runs wherever it is (test/unit/**): it moves only when its name
 * says its area.
 */
export function fallbackMove(file) {
  const workerdFile = /^test\/([^/]+\.test\.ts)$/.exec(file);
  if (workerdFile) return `test/workerd/${areaOfName(workerdFile[1]) ?? "unsorted"}/${workerdFile[1]}`;
  const unitFile = /^test\/unit\/([^/]+\.test\.ts)$/.exec(file);
  const area = unitFile && areaOfName(unitFile[1]);
  return area ? `test/unit/${area}/${unitFile[1]}` : undefined;
}

/**
 * Literal edits after the move (globs and lists no path rewrite can see), applied where present:
 * `file` is the file's path after the move, or "*" for every text file the move scans.
 */
export const TEXT_EDITS = [
  // The workerd tier's globs (vitest.config.ts) and the places that name them.
  { file: "vitest.config.ts", from: 'include: ["test/*.test.ts"]', to: 'include: ["test/workerd/**/*.test.ts"]' },
  { file: "*", from: "test/*.unconfigured.test.ts", to: "test/workerd/**/*.unconfigured.test.ts" },
  { file: "*", from: "test/*.test.ts", to: "test/workerd/**/*.test.ts" },
  // Names a path rewrite cannot see: a glob, and a renamed file named without its folder.
  {
    file: "docs/channels.md",
    from: "`test/unit/channels-googlechat*.test.ts`",
    to: "`test/unit/channels/channels-googlechat*.test.ts`",
  },
  {
    file: "test/workerd/runs/tool-loop-aborts.test.ts",
    from: "(also in tool-loop.test.ts)",
    to: "(also in tool-loop-openai.test.ts)",
  },
];
