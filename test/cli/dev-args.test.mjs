// The dev launcher's decisions (port, address, secrets file, notices) and the Node preflight.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { planDevStart, variableNames } from "../../scripts/dev-args.mjs";

const require = createRequire(import.meta.url);
const { nodeVersionProblem, dependencyProblem, NODE_RANGE } = require("../../scripts/preflight.cjs");
const REPO = fileURLToPath(new URL("../..", import.meta.url));
const REPO_ENGINES = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")).engines;

const EXAMPLE = "# comment\nADMIN_TOKEN=dev-admin-token\nDEV_OPERATOR_TOKEN=dev-operator-token\nRUN_TOKEN_SECRET=x\n";
const plan = (argv, env = {}, files = { devVars: null, example: EXAMPLE }) => planDevStart({ argv, env, files });
const portOf = (args) => args[args.indexOf("--port") + 1];

describe("npm run dev port handling", () => {
  test("serves on 127.0.0.1:8787 by default", () => {
    const result = plan([]);
    assert.equal(result.ok, true);
    assert.deepEqual(result.args.slice(0, 5), ["dev", "--ip", "127.0.0.1", "--port", "8787"]);
    assert.equal(result.baseUrl, "http://127.0.0.1:8787");
  });

  test("takes the port from PORT", () => {
    const result = plan([], { PORT: "8841" });
    assert.equal(portOf(result.args), "8841");
    assert.equal(result.baseUrl, "http://127.0.0.1:8841");
  });

  test("takes the port from --port N and --port=N, passing a single --port to wrangler", () => {
    for (const argv of [["--port", "8841"], ["--port=8841"], ["-p", "8841"]]) {
      const result = plan(argv);
      assert.equal(portOf(result.args), "8841", argv.join(" "));
      assert.equal(result.args.filter((a) => a.startsWith("--port")).length, 1);
    }
  });

  test("--port wins over PORT", () => {
    assert.equal(portOf(plan(["--port", "9001"], { PORT: "8841" }).args), "9001");
  });

  test("refuses a port that is not a whole number from 1 to 65535, naming where it came from", () => {
    for (const [argv, env, named] of [
      [["--port", "abc"], {}, "--port abc"],
      [["--port", "70000"], {}, "--port 70000"],
      [[], { PORT: "0" }, "PORT=0"],
      [[], { PORT: "88.4" }, "PORT=88.4"],
    ]) {
      const result = plan(argv, env);
      assert.equal(result.ok, false);
      assert.match(result.error, new RegExp(`^${named.replace(".", "\\.")} is not a port`));
    }
    assert.match(plan(["--port"]).error, /--port needs a value/);
  });

  test("passes other arguments to wrangler in order and honours --ip", () => {
    const result = plan(["--persist-to", "/tmp/x", "--ip", "0.0.0.0", "--log-level=warn"]);
    assert.deepEqual(result.args, [
      "dev",
      "--ip",
      "0.0.0.0",
      "--port",
      "8787",
      "--env-file",
      ".dev.vars.example",
      "--persist-to",
      "/tmp/x",
      "--log-level=warn",
    ]);
    assert.equal(result.baseUrl, "http://127.0.0.1:8787");
  });
});

describe("npm run dev secrets file", () => {
  test("without .dev.vars uses .dev.vars.example and says so, with the copy recipe for model keys", () => {
    const result = plan([]);
    assert.deepEqual(result.args.slice(5, 7), ["--env-file", ".dev.vars.example"]);
    const notice = result.notices.join("\n");
    assert.match(notice, /No \.dev\.vars: using the local secrets in \.dev\.vars\.example/);
    assert.match(notice, /MODEL_KEY_/);
    assert.match(notice, /cp \.dev\.vars\.example \.dev\.vars/);
  });

  test("with .dev.vars names the example's variables it lacks", () => {
    const result = plan([], {}, { devVars: "MODEL_KEY_OPENAI=sk-secret\nADMIN_TOKEN=a\n", example: EXAMPLE });
    assert.equal(result.args.includes("--env-file"), false);
    const notice = result.notices.join("\n");
    assert.match(notice, /does not set DEV_OPERATOR_TOKEN, RUN_TOKEN_SECRET/);
    assert.doesNotMatch(notice, /sk-secret/);
  });

  test("an --env-file given by the user is used as it is, without notices about secrets", () => {
    const result = plan(["--env-file", "prod.vars"]);
    assert.deepEqual(result.args.slice(-2), ["--env-file", "prod.vars"]);
    assert.equal(result.args.filter((a) => a === "--env-file").length, 1);
    assert.equal(result.notices.length, 1);
  });

  test("reads variable names from a .dev.vars file", () => {
    assert.deepEqual(variableNames("# c\n\nA=1\n export B = 2\nnot a var\nC_3=\r\n"), ["A", "B", "C_3"]);
  });
});

describe("Node preflight", () => {
  test("names the version, the range and the fix when Node is outside package.json's engines", () => {
    const problem = nodeVersionProblem("v20.19.1");
    assert.match(problem, /needs Node\.js >=24\.16\.0 <25 \|\| >=26\.1\.0/);
    assert.match(problem, /this is Node\.js v20\.19\.1/);
    assert.match(problem, /nvm install/);
    for (const version of ["v22.12.0", "v22.23.0", "v24.15.9", "v25.2.0", "v26.0.3"])
      assert.notEqual(nodeVersionProblem(version), null, version);
  });

  test("accepts what the openclaw devDependency accepts: 24.16+ of 24, 26.1 and newer", () => {
    for (const version of ["v24.16.0", "v24.22.3", "v26.1.0", "v30.1.2"])
      assert.equal(nodeVersionProblem(version), null);
  });

  test("the range is package.json's engines.node, and its minimum satisfies every direct dependency's engines", () => {
    const manifest = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8"));
    assert.equal(NODE_RANGE, manifest.engines.node);
    const semver = require("semver");
    const minimum = semver.minVersion(manifest.engines.node).version;
    for (const name of Object.keys({ ...manifest.dependencies, ...manifest.devDependencies })) {
      const wanted = JSON.parse(readFileSync(join(REPO, "node_modules", name, "package.json"), "utf8")).engines?.node;
      if (wanted)
        assert.ok(semver.satisfies(minimum, wanted), `${name} wants Node ${wanted}, the range allows ${minimum}`);
    }
    assert.match(readFileSync(join(REPO, ".npmrc"), "utf8"), /^engine-strict=true$/m);
    assert.ok(semver.satisfies(`${readFileSync(join(REPO, ".nvmrc"), "utf8").trim()}.99.0`, manifest.engines.node));
  });
});

describe("dependency preflight", () => {
  /** A scratch project: package.json with two dependencies, a lock, and what is installed. */
  function project({ installed = ["a", "b"], lockVersion = "1.0.0", installedVersion = "1.0.0", lockNewer = false }) {
    const root = mkdtempSync(join(tmpdir(), "preflight-"));
    writeFileSync(
      join(root, "package.json"),
      JSON.stringify({ dependencies: { a: "^1" }, devDependencies: { b: "^1" } }),
    );
    const lock = (version) => ({
      packages: { "": {}, "node_modules/a": { version }, "node_modules/b": { version: "1.0.0" } },
    });
    writeFileSync(join(root, "package-lock.json"), JSON.stringify(lock(lockVersion)));
    if (installed) {
      mkdirSync(join(root, "node_modules"));
      for (const name of installed) {
        mkdirSync(join(root, "node_modules", name));
        writeFileSync(join(root, "node_modules", name, "package.json"), "{}");
      }
      writeFileSync(join(root, "node_modules", ".package-lock.json"), JSON.stringify(lock(installedVersion)));
      const [older, newer] = [new Date(Date.now() - 60_000), new Date()];
      utimesSync(join(root, "package-lock.json"), lockNewer ? newer : older, lockNewer ? newer : older);
      utimesSync(
        join(root, "node_modules", ".package-lock.json"),
        lockNewer ? older : newer,
        lockNewer ? older : newer,
      );
    }
    return root;
  }

  test("says npm install when node_modules is absent", () => {
    assert.match(dependencyProblem(project({ installed: null })), /node_modules is missing[\s\S]*run `npm install`/);
  });

  test("names the dependencies a failed install left out", () => {
    assert.match(
      dependencyProblem(project({ installed: ["a"] })),
      /missing from node_modules[^\n]*: b\.[\s\S]*run `npm install`/,
    );
  });

  test("says npm install when package-lock.json changed since the install", () => {
    const problem = dependencyProblem(project({ lockVersion: "1.1.0", lockNewer: true }));
    assert.match(problem, /older than package-lock\.json \(1 packages differ, e\.g\. a\)[\s\S]*run `npm install`/);
  });

  test("passes a complete install, and a lock only touched since (same versions)", () => {
    assert.equal(dependencyProblem(project({})), null);
    assert.equal(dependencyProblem(project({ lockNewer: true })), null);
  });

  test("npm run dev's launcher stops with the message before printing anything else", () => {
    const root = project({ installed: ["a"] });
    mkdirSync(join(root, "scripts"));
    for (const name of ["dev.mjs", "dev-args.mjs", "preflight.cjs"])
      copyFileSync(join(REPO, "scripts", name), join(root, "scripts", name));
    writeFileSync(
      join(root, "package.json"),
      JSON.stringify({ engines: REPO_ENGINES, dependencies: { wrangler: "^4" } }),
    );
    const result = spawnSync(process.execPath, ["scripts/dev.mjs"], { cwd: root, encoding: "utf8" });
    assert.equal(result.status, 1);
    assert.equal(result.stdout, "");
    assert.match(result.stderr, /^dependencies missing from node_modules[^\n]*: wrangler\.\nFix: run `npm install`/);
    assert.doesNotMatch(result.stderr, /Cannot find module/);
  });
});
