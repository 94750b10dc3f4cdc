// Shape guard (part of `npm run lint`): Durable Object classes stay wiring plus RPC methods that
// delegate, and the README stays a door. Fails naming the file, the line and what to do.
//
// An object class is checked by what it does, not by its length (docs/architecture.md, "Ports
// by role"): a 300-line cap counted the one-line delegations of an object with many roles, so
// the tenant object hid its run methods in a base class to pass. Now every `*-object.ts` class
// extends the runtime's DurableObject itself (a base class of methods would escape the check),
// its constructor is wiring, and every other method is a few lines that hand the call on (the
// rule it applies lives in a named module).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** A method of an object class: the call handed on, with a line or two of glue. */
const METHOD_MAX_BODY_LINES = 12;
/** The constructor: the object's modules made and wired together. */
const CONSTRUCTOR_MAX_BODY_LINES = 90;
/** The README is the front door; the reference lives in docs/. */
const README_MAX_LINES = 350;

const lineCount = (path) => readFileSync(path, "utf8").split("\n").length - 1;

function* objectFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* objectFiles(path);
    else if (entry.name.endsWith("-object.ts")) yield path;
  }
}

/** A line's code without its comment and string contents (their braces are not the code's). */
const codeOf = (line) =>
  line.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`(?:[^`\\]|\\.)*`/g, '""').replace(/\/\/.*$/, "");

/** A method's head at the class body's level: modifiers, a name, its parameters' opening paren. */
const METHOD_HEAD =
  /^\s+(?:(?:override|async|private|protected|public|static|get|set)\s+)*\*?([#\w]+)\s*(?:<[^>]*>)?\(/;

/**
 * The top-level exported classes of a file, each with its `extends` and its methods' body
 * lengths (lines between the method's head and its closing brace). Braces are counted per line,
 * which the formatter's layout (one statement a line, bodies on their own lines) makes exact.
 */
function objectClasses(text) {
  const classes = [];
  let depth = 0;
  let current = null;
  let method = null;
  text.split("\n").forEach((line, index) => {
    const code = codeOf(line);
    const head = /^export (?:default )?(?:abstract )?class (\w+)(?:<[^>]*>)?(?: extends ([\w.]+))?/.exec(line);
    if (!current && head) {
      current = { name: head[1], extends: head[2], line: index + 1, depth, methods: [] };
      classes.push(current);
    }
    const before = depth;
    for (const ch of code) {
      if (ch === "{") depth++;
      else if (ch === "}") depth--;
    }
    if (!current) return;
    const name = METHOD_HEAD.exec(code)?.[1];
    if (!method && before === current.depth + 1 && name && depth > before) method = { name, start: index };
    if (method && depth === current.depth + 1 && before > depth) {
      current.methods.push({ name: method.name, line: method.start + 1, bodyLines: index - method.start - 1 });
      method = null;
    }
    if (depth === current.depth && before > depth) current = null;
  });
  return classes;
}

const problems = [];
for (const path of objectFiles("src")) {
  for (const objectClass of objectClasses(readFileSync(path, "utf8"))) {
    if (objectClass.extends !== "DurableObject")
      problems.push(
        `${path}:${objectClass.line}: ${objectClass.name} extends ${objectClass.extends ?? "nothing"} (an object class extends DurableObject itself; its roles are objects it delegates to)`,
      );
    for (const method of objectClass.methods) {
      const max = method.name === "constructor" ? CONSTRUCTOR_MAX_BODY_LINES : METHOD_MAX_BODY_LINES;
      if (method.bodyLines > max)
        problems.push(
          `${path}:${method.line}: ${objectClass.name}.${method.name} has ${method.bodyLines} lines (<= ${max}: an object's method delegates; move the rule into a named module)`,
        );
    }
  }
}
const readme = lineCount("README.md");
if (readme > README_MAX_LINES)
  problems.push(`README.md: ${readme} lines (<= ${README_MAX_LINES}; the reference belongs in docs/)`);

if (problems.length > 0) {
  for (const problem of problems) console.error(`shape guard: ${problem}`);
  process.exit(1);
}
