import { keyring, type SecretKeyEnv, SecretKeyError } from "../secrets/secret-crypto";

/**
 * The deployment's own configuration as the operator needs to know it (GET /v1/admin/health):
 * each worker secret or var that is missing or malformed, by name, with what breaks without it.
 * Tenants never see this: what they are told names no variable (SECRET_STORAGE_UNAVAILABLE).
 */

export type DeploymentProblem = { name: string; problem: string; breaks: string };

type HealthEnv = SecretKeyEnv & {
  RUN_TOKEN_SECRET?: string;
  AUTH_GRANT_SECRET?: string;
  DEPLOYMENT_KEY_HOSTS?: unknown;
};

const SECRET_STORE_BREAKS =
  "the tenant secret store (PUT /v1/secrets, secrets.store.*), Telegram/Slack configs with a plain token, hook tokens kept in the store: tenants are refused with 503";

export async function deploymentHealth(env: HealthEnv): Promise<{ healthy: boolean; problems: DeploymentProblem[] }> {
  const problems: DeploymentProblem[] = [];
  try {
    await keyring(env);
  } catch (error) {
    if (!(error instanceof SecretKeyError)) throw error;
    problems.push({ name: error.variable, problem: error.problem, breaks: SECRET_STORE_BREAKS });
  }
  if (!env.RUN_TOKEN_SECRET) {
    problems.push({
      name: "RUN_TOKEN_SECRET",
      problem: "not set",
      breaks: "webhook runners: their runs fail (no run token for their callbacks and tool calls)",
    });
  }
  if (!env.AUTH_GRANT_SECRET) {
    problems.push({
      name: "AUTH_GRANT_SECRET",
      problem: "not set",
      breaks: "nothing refused, but no access grant is cached: every request past the 1 s cache asks the tenant object",
    });
  }
  if (typeof env.DEPLOYMENT_KEY_HOSTS === "string" && !isJsonObject(env.DEPLOYMENT_KEY_HOSTS)) {
    problems.push({
      name: "DEPLOYMENT_KEY_HOSTS",
      problem: "not a JSON object of key name → hosts",
      breaks: "every deployment key (MODEL_KEY_*): sent to no host, so runners naming one fail",
    });
  }
  return { healthy: problems.length === 0, problems };
}

function isJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value);
  } catch {
    return false;
  }
}
