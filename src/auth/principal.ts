import type { TenantConfig } from "../protocol/config";
import type { OperatorScope } from "../protocol/http";
import type { RunTokenClaims } from "./run-token";

/** Who is calling: an operator token (scopes), or a run token acting as one session. */
export type Principal =
  | { kind: "operator"; scopes: readonly OperatorScope[]; tokenId?: string }
  | {
      kind: "run";
      scopes: readonly OperatorScope[];
      claims: RunTokenClaims;
      /** Whether the token's run is still queued or running (only then may it call tools). */
      runActive: boolean;
    };

/** A caller that authenticated against one tenant, with the config it acts under. */
export type Access = { principal: Principal; config: TenantConfig };

/** Operator scopes; a run token holds none (it may only call tools and its run's callbacks). */
export function hasScope(principal: Principal, scope: OperatorScope): boolean {
  if (principal.kind === "run") return false;
  if (principal.scopes.includes("operator.admin")) return true;
  if (scope === "operator.read") {
    return principal.scopes.includes("operator.write") || principal.scopes.includes("operator.read");
  }
  return principal.scopes.includes(scope);
}
