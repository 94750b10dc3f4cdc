import { Value } from "typebox/value";
import type { Principal } from "../auth/principal";
import { runClaims } from "../auth/run-token";
import { DomainError } from "../domain/errors";
import type { RunRecord } from "../model/run-types";
import { offeredTools } from "../policy/tool-offer";
import type { TenantConfig } from "../protocol/config";
import type { SessionEntry } from "../protocol/session";
import { toolDeclaration } from "../protocol/tool-specs/tool-declarations";
import type { SessionToolbox } from "../runs/run-executor";
import type { ModelToolCall } from "../runs/runners/runner";
import type { ToolOutcome } from "../runs/tool-loop/tool-loop";
import { type ObjectBindings, tenantContext } from "../stubs";
import { invokeTool, ToolNotAvailableError } from "./invoke";
import { ToolInputError } from "./result";

export type ToolboxEnv = ObjectBindings & { ATTACHMENTS: R2Bucket };

/**
 * The session tools as a run's model gets them: the offer (policy/tool-offer.ts) in OpenClaw's
 * recorded schemas, and each call validated as OpenClaw validates a model's call, then run
 * through the one tool entry point (`invokeTool`, as /tools/invoke and MCP do) acting as the
 * run's session — the same principal a run token would carry. Errors become `isError` results
 * in OpenClaw's words; nothing thrown reaches the loop. The run executor gets it as a port
 * (ExecutorDeps.toolbox, wired in session/session-parts.ts).
 */
export function sessionToolbox(
  env: ToolboxEnv,
  run: RunRecord,
  entry: SessionEntry | null,
  config: TenantConfig,
): SessionToolbox {
  const spawnDepth = entry?.spawnDepth ?? 0;
  const offered = offeredTools(config, { agentId: run.input.agentId, spawnDepth });
  const specs = offered.map((name) => {
    const { schema, subagentDescription } = toolDeclaration(name)!.model!;
    const description = spawnDepth > 0 && subagentDescription ? subagentDescription : schema.description;
    return { name, description, parameters: schema.parameters };
  });
  const principal: Principal = {
    kind: "run",
    scopes: [],
    // The run's own calls: in the run, never expiring.
    claims: runClaims(run, entry, Number.MAX_SAFE_INTEGER),
    runActive: true,
  };
  const ctx = tenantContext(env, {
    tenantId: run.input.tenantId,
    config,
    principal,
    ...(run.input.callbackBase ? { origin: new URL(run.input.callbackBase).origin } : {}),
  });
  return {
    specs,
    invoke: async (call, idempotencyKey) => {
      if (!offered.includes(call.name)) return notFound(call.name);
      const invalid = validationError(call);
      if (invalid) return { text: invalid, details: {}, isError: true };
      try {
        const result = await invokeTool(ctx, { tool: call.name, args: call.arguments, idempotencyKey });
        return {
          text: result.content.map((block) => block.text).join(""),
          details: result.details,
          isError: isErrorResult(result.details),
        };
      } catch (error) {
        if (error instanceof ToolNotAvailableError) return notFound(call.name);
        if (error instanceof ToolInputError || error instanceof DomainError) {
          return { text: error.message, details: {}, isError: true };
        }
        console.error("tool loop: tool failed", call.name, error);
        return {
          text: `Tool ${call.name} failed: ${(error as Error)?.message ?? String(error)}`,
          details: {},
          isError: true,
        };
      }
    },
  };
}

/** OpenClaw's answer to a tool the model was not offered (or that does not exist). */
function notFound(name: string): ToolOutcome {
  return { text: `Tool ${name} not found`, details: {}, isError: true };
}

/** Statuses the session tools answer failures with (OpenClaw marks them isError). */
function isErrorResult(details: unknown): boolean {
  const status = typeof details === "object" && details !== null ? (details as { status?: unknown }).status : undefined;
  return status === "error" || status === "forbidden";
}

type SchemaError = {
  keyword: string;
  instancePath: string;
  params: { requiredProperties?: string[] };
  message: string;
};

/**
 * The call's arguments against the schema the model was given, checked and worded as
 * OpenClaw does (TypeBox; `Validation failed for tool "x":\n  - path: message\n\nReceived
 * arguments:\n{…}`); null when they pass (after TypeBox's conversion of e.g. "5" to 5).
 */
function validationError(call: ModelToolCall): string | null {
  const schema = toolDeclaration(call.name)?.model?.schema.parameters;
  if (!schema) return null;
  if (Value.Check(schema, call.arguments)) return null;
  const converted = Value.Convert(schema, structuredClone(call.arguments));
  if (Value.Check(schema, converted)) {
    call.arguments = converted as Record<string, unknown>;
    return null;
  }
  const errors = ([...Value.Errors(schema, call.arguments)] as unknown as SchemaError[])
    .map((error) => `  - ${errorPath(error)}: ${error.message}`)
    .join("\n");
  return `Validation failed for tool "${call.name}":\n${errors || "Unknown validation error"}\n\nReceived arguments:\n${JSON.stringify(call.arguments, null, 2)}`;
}

function errorPath(error: SchemaError): string {
  const base = error.instancePath.replace(/^\//, "").replace(/\//g, ".");
  const required = error.keyword === "required" ? error.params.requiredProperties?.[0] : undefined;
  if (required) return base ? `${base}.${required}` : required;
  return base || "root";
}
