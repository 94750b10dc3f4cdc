// The few Node APIs the Node-tier tests use, typed here: the project's tsconfig carries the
// Workers types (the code under test), not Node's, and the two must not mix.
declare module "node:fs" {
  export function readdirSync(path: string): string[];
  export function readFileSync(path: string, encoding: "utf8"): string;
}
declare module "node:path" {
  export function join(...parts: string[]): string;
}
declare const process: { cwd(): string };
