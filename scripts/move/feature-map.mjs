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
  // mcp + oauth: the endpoint and its authorization server
  ["src/mcp/", "src/features/mcp/"],
  ["src/oauth/", "src/features/mcp/oauth/"],
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

/** test/: filled in below (tiers foldered after what they test). */
export const TEST_MOVES = [];

export const MOVES = [...SOURCE_MOVES, ...TEST_MOVES];

/** Literal edits after the move (globs and lists no path rewrite can see), applied where present. */
export const TEXT_EDITS = [];
