// `cloudflare:workers` for the Node tier: the base classes only, so modules that define a
// Durable Object or an entrypoint (the OAuth provider the MCP slice uses) can be imported to
// inspect their tables. Nothing here runs a Worker.
export class DurableObject {}
export class WorkerEntrypoint {}
export class RpcTarget {}
export const env = {};
