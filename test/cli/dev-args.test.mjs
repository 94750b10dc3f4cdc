// The dev launcher's decisions (port, address, secrets file, notices) and the Node preflight.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { describe, test } from "node:test";
import { planDevStart, variableNames } from "../../scripts/dev-args.mjs";

const require = createRequire(import.meta.url);
const { nodeVersionProblem } = require("../../scripts/preflight.cjs");

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
  test("names the version, the requirement and the fix when Node is too old", () => {
    const problem = nodeVersionProblem("v20.19.1");
    assert.match(problem, /needs Node\.js 22\.12\.0 or newer/);
    assert.match(problem, /this is Node\.js v20\.19\.1/);
    assert.match(problem, /nvm install/);
    assert.notEqual(nodeVersionProblem("v22.11.9"), null);
  });

  test("accepts 22.12 and newer", () => {
    for (const version of ["v22.12.0", "v22.20.1", "v24.0.0", "v30.1.2"])
      assert.equal(nodeVersionProblem(version), null);
  });
});
