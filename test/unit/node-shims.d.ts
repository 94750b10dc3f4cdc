// The few Node APIs the Node-tier tests use, typed here: the project's tsconfig carries the
// Workers types (the code under test), not Node's, and the two must not mix.
declare module "node:fs" {
  export function readdirSync(path: string): string[];
  export function readFileSync(path: string, encoding: "utf8"): string;
  export function mkdtempSync(prefix: string): string;
  export function mkdirSync(path: string, options?: { recursive: true }): void;
  export function writeFileSync(path: string, data: string): void;
  export function rmSync(path: string, options: { recursive: true; force: true }): void;
  export function statSync(path: string): { isDirectory(): boolean };
}
declare module "node:os" {
  export function tmpdir(): string;
}
declare module "node:child_process" {
  export function execFileSync(file: string, args: string[], options?: { stdio?: "ignore" }): unknown;
  export function spawnSync(
    command: string,
    args: string[],
    options: { cwd: string; encoding: "utf8" },
  ): { status: number | null; stdout: string; stderr: string };
}
declare module "node:crypto" {
  export function createSign(algorithm: string): {
    update(data: string): { sign(privateKeyPem: string): { toString(encoding: "base64url"): string } };
  };
  export function createVerify(algorithm: string): {
    update(data: string): { verify(publicKeyPem: string, signature: Uint8Array): boolean };
  };
}
declare module "node:path" {
  export function join(...parts: string[]): string;
  export function dirname(path: string): string;
}
declare const process: { cwd(): string; execPath: string; env: Record<string, string | undefined> };
declare module "node:sqlite" {
  export type SQLInputValue = null | number | bigint | string | Uint8Array;
  export class StatementSync {
    columns(): Array<{ name: string }>;
    all(...values: SQLInputValue[]): unknown[];
    run(...values: SQLInputValue[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  }
  export class DatabaseSync {
    constructor(path: string);
    exec(sql: string): void;
    prepare(sql: string): StatementSync;
  }
}
declare module "node:child_process" {
  export type ChildProcess = {
    stderr: { on(event: "data", listener: (chunk: { toString(): string }) => void): void } | null;
    on(event: "exit", listener: (code: number | null) => void): void;
    kill(): boolean;
  };
  export function spawn(command: string, args: string[], options: { stdio: string[] }): ChildProcess;
}
declare module "node:net" {
  export function createServer(): {
    listen(port: number, host: string, ready: () => void): { address(): unknown; close(done: () => void): void };
  };
}
declare module "node:http" {
  export type IncomingMessage = { url?: string; on(event: "data" | "end", listener: (chunk?: unknown) => void): void };
  export type ServerResponse = {
    writeHead(status: number, headers: Record<string, string>): void;
    write(data: string): void;
    end(data?: string): void;
  };
  export type Server = {
    listen(port: number, host: string, ready: () => void): Server;
    address(): unknown;
    close(done: () => void): void;
  };
  export function createServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Server;
}
