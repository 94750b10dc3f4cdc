import type { TenantContext } from "../../domain/context";
import { DomainError } from "../../domain/errors";
import { mergeConfig } from "../../domain/tenant-config";
import { toBase64Url } from "../../util/encoding";
import { setTelegramWebhook } from "./channel-admin";
import { catalogueLabel } from "./control-ui-catalogue";
import type { ChatPlatform } from "./platform";
import type { PlatformSetup, SetupField } from "./platform-setup";
import { PLATFORMS, platformOf } from "./platforms";
import { setupFor } from "./setup-steps";

/**
 * OpenClaw's `wizard.*` channels flow (`wizard.start {flow: "channels", channel?}`), as the
 * Control UI's Channels › Set up drives it: the steps come from each platform's descriptor
 * (`setup`), the answers are written as one config merge (secrets sealed into the secret store
 * by the config write, never answered back), then the webhook is registered or its URL shown.
 *
 * The real gateway runs the wizard as a live coroutine; here the tenant object may hibernate
 * between two steps, so a wizard is a small state the connection keeps in its socket attachment
 * (one per connection, expiring, bounded): the answers wait there until the last field, and are
 * dropped when the wizard ends, is cancelled, expires or another one starts.
 */

/** A wizard left alone this long is gone ("wizard not found"). */
export const SETUP_WIZARD_TTL_MS = 30 * 60_000;
/** The answers a wizard holds at once (they live in the socket attachment, ≤ 16 KiB in all). */
export const SETUP_WIZARD_ANSWERS_MAX_CHARS = 8 * 1024;
const ACCOUNT_ID = "default";
/** The random secrets the service makes for itself (Telegram's webhook secret): 32 bytes. */
const GENERATED_SECRET_BYTES = 32;

/** A wizard in progress, as its connection keeps it. */
export type SetupWizardState = {
  id: string;
  /** The platform, once known (started on a card, or picked in the select step). */
  channel?: string;
  /** Started without a channel: the flow asks for one first. */
  select: boolean;
  /** Said yes to "Configure DM access policies now?": the policy is asked next. */
  dmPolicies?: boolean;
  /** The current step's index in the flow. */
  page: number;
  /** Answers so far, by config key (secrets included until the config is written). */
  answers: Record<string, string>;
  /** What the webhook step says, once the config is written. */
  result?: string;
  expiresAt: number;
};

/** Where the connection keeps its wizard. */
export type SetupWizardHolder = {
  get(): SetupWizardState | undefined;
  set(state: SetupWizardState | undefined): void;
};

/** OpenClaw's WizardStep, as far as this flow uses it. */
type WizardStep = {
  id: string;
  type: "note" | "select" | "text" | "confirm";
  title?: string;
  message: string;
  options?: { value: string; label: string }[];
  initialValue?: boolean;
  placeholder?: string;
  sensitive?: boolean;
  executor: "client";
};

type Page =
  | { kind: "intro" }
  | { kind: "select" }
  | { kind: "help" }
  | { kind: "field"; field: SetupField }
  | { kind: "dmConfirm" }
  | { kind: "dmPolicy" }
  | { kind: "webhook" }
  | { kind: "outro" };

/** The platforms Set up is offered for: every one served. */
function setupPlatforms(): readonly ChatPlatform[] {
  return PLATFORMS as readonly ChatPlatform[];
}

function setupOf(channel: string | undefined): { platform: ChatPlatform; setup: PlatformSetup } | undefined {
  const platform = channel === undefined ? undefined : platformOf(channel);
  return platform ? { platform, setup: setupFor(platform) } : undefined;
}

/** The flow's steps: OpenClaw's intro, the channel pick when none was given, the platform's own, the outro. */
function pagesOf(state: SetupWizardState): Page[] {
  const chosen = setupOf(state.channel);
  const own: Page[] = chosen
    ? [
        { kind: "help" },
        ...chosen.setup.fields.map((field) => ({ kind: "field" as const, field })),
        // OpenClaw's optional DM policy question, for the platforms that pair DM senders.
        ...(chosen.platform.pairing ? [{ kind: "dmConfirm" as const }] : []),
        ...(state.dmPolicies ? [{ kind: "dmPolicy" as const }] : []),
        { kind: "webhook" },
        { kind: "outro" },
      ]
    : [];
  return [{ kind: "intro" }, ...(state.select ? [{ kind: "select" as const }] : []), ...own];
}

function stepOf(state: SetupWizardState): WizardStep {
  const page = pagesOf(state)[state.page]!;
  const id = `${state.id}:${state.page}`;
  const chosen = setupOf(state.channel);
  switch (page.kind) {
    case "intro":
      return { id, type: "note", title: "Channel setup", message: "", executor: "client" };
    case "select":
      return {
        id,
        type: "select",
        message: "Select a channel",
        options: setupPlatforms().map((platform) => ({ value: platform.name, label: platform.label })),
        executor: "client",
      };
    case "help":
      return {
        id,
        type: "note",
        title: chosen!.setup.help.title,
        message: chosen!.setup.help.lines.join("\n"),
        executor: "client",
      };
    case "field":
      return {
        id,
        type: "text",
        message: page.field.message,
        ...(page.field.placeholder ? { placeholder: page.field.placeholder } : {}),
        ...(isSecret(chosen!.platform, page.field.key) ? { sensitive: true } : {}),
        executor: "client",
      };
    case "dmConfirm":
      return {
        id,
        type: "confirm",
        message: "Configure DM access policies now? (default: pairing)",
        initialValue: false,
        executor: "client",
      };
    case "dmPolicy":
      return {
        id,
        type: "select",
        message: `${chosen!.platform.label} DM policy`,
        options: DM_POLICY_OPTIONS.map(([value, label]) => ({ value, label })),
        executor: "client",
      };
    case "webhook":
      return {
        id,
        type: "note",
        title: `${chosen!.platform.label} webhook`,
        message: state.result!,
        executor: "client",
      };
    case "outro":
      return { id, type: "note", title: "Done", message: "Channels updated.", executor: "client" };
  }
}

/** OpenClaw's DM policy choices, with its labels. */
const DM_POLICY_OPTIONS = [
  ["pairing", "Pairing (recommended)"],
  ["allowlist", "Allowlist (specific users only)"],
  ["open", "Open (public inbound DMs)"],
  ["disabled", "Disabled (ignore DMs)"],
] as const;

const isSecret = (platform: ChatPlatform, key: string) => Object.hasOwn(platform.config.secrets, key);

const running = (state: SetupWizardState) => ({ done: false, step: stepOf(state), status: "running" as const });

/** OpenClaw's answer for a session this connection does not have (unknown, ended or expired). */
function notFound(): DomainError {
  return new DomainError("invalid", "wizard not found", { code: "WIZARD_NOT_FOUND" });
}

function liveWizard(holder: SetupWizardHolder, sessionId: string, now: number): SetupWizardState {
  const state = holder.get();
  if (!state || state.id !== sessionId) throw notFound();
  if (state.expiresAt <= now) {
    holder.set(undefined);
    throw notFound();
  }
  return state;
}

/** `wizard.start`: the channels flow (OpenClaw's other flow, first-run setup, is not served here). */
export function startSetupWizard(
  holder: SetupWizardHolder,
  params: { flow?: string | undefined; channel?: string | undefined },
  now = Date.now(),
) {
  const id = crypto.randomUUID();
  const fail = (error: string) => ({ sessionId: id, done: true, status: "error" as const, error });
  if (params.flow !== "channels") {
    return fail("Gateway setup is not served here; use Channels › Set up for a chat platform.");
  }
  const channel = params.channel?.trim().toLowerCase();
  if (channel !== undefined && !setupOf(channel)) {
    const served = setupPlatforms()
      .map((platform) => platform.label)
      .join(", ");
    const label = catalogueLabel(PLATFORMS as readonly ChatPlatform[], channel);
    return fail(`${label} is not available on this service (served: ${served}).`);
  }
  // One wizard per connection: a new start replaces the one before (its answers are dropped).
  const state: SetupWizardState = {
    id,
    ...(channel ? { channel } : {}),
    select: channel === undefined,
    page: 0,
    answers: {},
    expiresAt: now + SETUP_WIZARD_TTL_MS,
  };
  holder.set(state);
  return { sessionId: id, ...running(state) };
}

/** `wizard.next {sessionId, answer?}`: the answer to the current step, then the next step (or the end). */
export async function nextSetupWizard(
  ctx: TenantContext<"config" | "secrets">,
  holder: SetupWizardHolder,
  params: { sessionId: string; answer?: { stepId: string; value?: unknown } | undefined },
  now = Date.now(),
) {
  const state = liveWizard(holder, params.sessionId, now);
  if (!params.answer) return running(state);
  if (params.answer.stepId !== stepOf(state).id) throw new DomainError("invalid", "wizard: no pending step");
  const page = pagesOf(state)[state.page]!;
  const refusal = answerRefusal(state, page, params.answer.value);
  if (refusal) return { ...running(state), error: refusal };
  let next: SetupWizardState = { ...state, page: state.page + 1, expiresAt: now + SETUP_WIZARD_TTL_MS };
  const value = params.answer.value;
  if (page.kind === "select") next = { ...next, channel: String(value) };
  if (page.kind === "field") next = { ...next, answers: { ...state.answers, [page.field.key]: textOf(value)!.trim() } };
  if (page.kind === "dmConfirm" && value === true) next = { ...next, dmPolicies: true };
  if (page.kind === "dmPolicy") next = { ...next, answers: { ...state.answers, dmPolicy: String(value) } };
  if (pagesOf(next)[next.page]?.kind === "webhook") {
    // The last question: the config is written now and the answers leave the connection.
    holder.set(undefined);
    try {
      next = { ...next, answers: {}, result: await applySetup(ctx, next) };
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return { done: true, status: "error" as const, error: error.message };
    }
  }
  if (next.page >= pagesOf(next).length) {
    holder.set(undefined);
    return {
      done: true,
      status: "done" as const,
      channels: [next.channel!],
      accounts: [{ channel: next.channel!, accountId: ACCOUNT_ID }],
    };
  }
  holder.set(next);
  return running(next);
}

/** `wizard.cancel {sessionId}`: the wizard ends and nothing it was told is kept. */
export function cancelSetupWizard(holder: SetupWizardHolder, params: { sessionId: string }, now = Date.now()) {
  liveWizard(holder, params.sessionId, now);
  holder.set(undefined);
  return { status: "cancelled" as const, error: "cancelled" };
}

/** `wizard.status {sessionId}`. */
export function setupWizardStatus(holder: SetupWizardHolder, params: { sessionId: string }, now = Date.now()) {
  liveWizard(holder, params.sessionId, now);
  return { status: "running" as const };
}

function textOf(value: unknown): string | undefined {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}

/** Why an answer is refused (the step is asked again with it), or null. */
function answerRefusal(state: SetupWizardState, page: Page, value: unknown): string | null {
  if (page.kind === "select") {
    return typeof value === "string" && setupOf(value) ? null : "Select one of the channels listed.";
  }
  if (page.kind === "dmConfirm")
    return typeof value === "boolean" ? null : "wizard: confirm answer must be true or false";
  if (page.kind === "dmPolicy") {
    return DM_POLICY_OPTIONS.some(([policy]) => policy === value) ? null : "Select one of the policies listed.";
  }
  if (page.kind !== "field") return null;
  const text = textOf(value);
  if (text === undefined) return "wizard: text answer must be a scalar value";
  const trimmed = text.trim();
  if (!trimmed) return "Required";
  const { platform } = setupOf(state.channel)!;
  const format = page.field.format;
  if (format && !format.pattern.test(trimmed)) return format.message;
  // The config's own schema for that key (its limits and shapes, e.g. a phone number id's digits).
  const checked = platform.config.schema.safeParse({ [page.field.key]: trimmed });
  const issue = checked.error?.issues.find((found) => found.path[0] === page.field.key);
  if (issue) return issue.message;
  const held = JSON.stringify(state.answers).length + trimmed.length;
  if (held > SETUP_WIZARD_ANSWERS_MAX_CHARS)
    return `too long: the answers may hold ${SETUP_WIZARD_ANSWERS_MAX_CHARS} characters in all`;
  return null;
}

/** Registrars of the platforms whose webhook the service registers itself (`webhook: {kind: "register"}`). */
const WEBHOOK_REGISTRARS: Record<string, (ctx: TenantContext<"secrets">) => Promise<string>> = {
  telegram: async (ctx) => {
    const answer = await setTelegramWebhook(ctx);
    if (answer.ok) return `Registered ${answer.url} with Telegram (setWebhook).`;
    return `${answer.error.message}\nFix it, then register again: POST /v1/channels/telegram/webhook.`;
  },
};

/** Writes the answers into `channels.<name>` (enabled), then registers the webhook or says where to paste it. */
async function applySetup(ctx: TenantContext<"config" | "secrets">, state: SetupWizardState): Promise<string> {
  const { platform, setup } = setupOf(state.channel)!;
  const block = (ctx.config.channels as Record<string, Record<string, unknown> | undefined> | undefined)?.[
    platform.name
  ];
  const generated = Object.fromEntries(
    (setup.generatedSecrets ?? []).filter((key) => block?.[key] === undefined).map((key) => [key, randomSecret()]),
  );
  await mergeConfig(ctx, { channels: { [platform.name]: { enabled: true, ...state.answers, ...generated } } }, {});
  // The registrar reads the config just written (its secrets as stored references).
  const written = { ...ctx, config: await ctx.tenant.config() };
  const path = (block?.webhookPath as string | undefined) ?? platform.ingress.defaultPath;
  if (setup.webhook.kind === "register") {
    const register = WEBHOOK_REGISTRARS[platform.name];
    if (register) return register(written);
  }
  if (!ctx.origin)
    return "The service's public origin is unknown (set PUBLIC_ORIGIN): the webhook URL is your base URL + " + path;
  const url = `${ctx.origin}/t/${ctx.tenantId}${path}`;
  return setup.webhook.kind === "paste" ? `${url}\n${setup.webhook.hint}` : url;
}

function randomSecret(): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(GENERATED_SECRET_BYTES)));
}
