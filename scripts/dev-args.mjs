// Decides how `npm run dev` starts `wrangler dev`: port, address, which secrets file, and what to
// tell the user. Pure (files are passed in), so it is tested without starting anything.

export const DEFAULT_PORT = 8787;
export const DEFAULT_IP = "127.0.0.1";
export const DEV_VARS = ".dev.vars";
export const DEV_VARS_EXAMPLE = ".dev.vars.example";

/**
 * @param {{ argv: string[], env: Record<string, string | undefined>,
 *           files: { devVars: string | null, example: string | null } }} input
 *   argv: the arguments after `npm run dev --`; files: the contents of .dev.vars and
 *   .dev.vars.example (null when absent).
 * @returns {{ ok: true, args: string[], port: number, baseUrl: string, notices: string[] } | { ok: false, error: string }}
 */
export function planDevStart({ argv, env, files }) {
  const passThrough = [];
  let portArg;
  let ip;
  let envFileGiven = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [name, inline] = splitOption(arg);
    if (name === "--port" || name === "-p") {
      const value = inline ?? argv[++i];
      if (value === undefined) return { ok: false, error: `${name} needs a value, e.g. ${name} 8841` };
      portArg = value;
      continue;
    }
    if (name === "--ip") {
      const value = inline ?? argv[++i];
      if (value === undefined) return { ok: false, error: "--ip needs a value, e.g. --ip 0.0.0.0" };
      ip = value;
      continue;
    }
    if (name === "--env-file") envFileGiven = true;
    passThrough.push(arg);
  }

  const source = portArg !== undefined ? `--port ${portArg}` : env.PORT ? `PORT=${env.PORT}` : undefined;
  const port = parsePort(portArg ?? env.PORT ?? String(DEFAULT_PORT));
  if (port === null) return { ok: false, error: `${source} is not a port: use a whole number from 1 to 65535` };

  const host = ip ?? DEFAULT_IP;
  const args = ["dev", "--ip", host, "--port", String(port)];
  const notices = [];
  if (!envFileGiven) {
    if (files.devVars === null) {
      args.push("--env-file", DEV_VARS_EXAMPLE);
      notices.push(exampleNotice(files.example));
    } else {
      const missing = missingKeys(files.devVars, files.example);
      if (missing.length > 0) notices.push(missingKeysNotice(missing));
    }
  }
  args.push(...passThrough);
  const shownHost = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  const baseUrl = `http://${shownHost.includes(":") ? `[${shownHost}]` : shownHost}:${port}`;
  notices.push(`Serving on ${baseUrl}  (for the README examples: export BASE=${baseUrl})`);
  return { ok: true, args, port, baseUrl, notices };
}

function splitOption(arg) {
  const eq = arg.indexOf("=");
  return arg.startsWith("-") && eq > 0 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, undefined];
}

function parsePort(text) {
  if (!/^\d{1,5}$/.test(text.trim())) return null;
  const port = Number(text.trim());
  return port >= 1 && port <= 65535 ? port : null;
}

/** Variable names of a .dev.vars-style file (KEY=value lines; comments and blanks skipped). */
export function variableNames(text) {
  if (!text) return [];
  return text
    .split(/\r?\n/)
    .map((line) => /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(line)?.[1])
    .filter((name) => name !== undefined);
}

function missingKeys(devVars, example) {
  const present = new Set(variableNames(devVars));
  return variableNames(example).filter((name) => !present.has(name));
}

function exampleNotice(example) {
  const names = variableNames(example);
  return [
    `No ${DEV_VARS}: using the local secrets in ${DEV_VARS_EXAMPLE} (${names.join(", ")}):`,
    "  admin token dev-admin-token, operator token dev-operator-token of the default tenant.",
    "  Model keys for openai runners (MODEL_KEY_<NAME>, named by a runner's apiKeySecret, granted by DEV_DEPLOYMENT_KEY_GRANTS) go in a .dev.vars.",
    `  A ${DEV_VARS} replaces ${DEV_VARS_EXAMPLE} entirely, so start from a copy:`,
    `    cp ${DEV_VARS_EXAMPLE} ${DEV_VARS}      (Windows: copy ${DEV_VARS_EXAMPLE} ${DEV_VARS})`,
  ].join("\n");
}

function missingKeysNotice(missing) {
  return [
    `Using ${DEV_VARS}; it does not set ${missing.join(", ")} (${DEV_VARS_EXAMPLE} is not read when ${DEV_VARS} exists).`,
    "  Unset ADMIN_TOKEN closes the admin API; unset DEV_OPERATOR_TOKEN disables the dev operator token;",
    "  unset RUN_TOKEN_SECRET makes webhook runs fail; unset AUTH_GRANT_SECRET keeps no access grants (each",
    "  token is asked of the tenant every second); unset OUTBOUND_ALLOW_LOOPBACK refuses runner and",
    "  delivery URLs on this machine (127.0.0.1, localhost). Copy the lines you need from the example.",
  ].join("\n");
}
