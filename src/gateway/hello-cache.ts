import type { TenantConfig } from "../protocol/config";

/** Placeholders the builder is given, replaced per connection in the cached JSON. */
const CONN_ID_MARK = "conn-id-7b1f0c9e-placeholder";
const UPTIME_MARK = 987_654_321_987;

type Variant = { json: string };

/**
 * hello-ok rendered once per tenant configuration (its frozen config object is its version:
 * a saved config is a new object) and per protocol and granted scopes; a connection only
 * fills in its own `connId` and the uptime. The content is exactly what the builder returns.
 */
export class HelloCache {
  private readonly byConfig = new WeakMap<object, Map<string, Variant>>();

  /** The `res` frame answering `connect` with hello-ok. */
  frame(
    id: string,
    config: Readonly<TenantConfig>,
    variant: { protocol: number; scopes: readonly string[] },
    connection: { connId: string; uptimeMs: number },
    build: (marks: { connId: string; uptimeMs: number }) => unknown,
  ): string {
    let variants = this.byConfig.get(config);
    if (!variants) {
      variants = new Map();
      this.byConfig.set(config, variants);
    }
    const key = `${variant.protocol}|${variant.scopes.join(",")}`;
    let cached = variants.get(key);
    if (!cached) {
      cached = { json: JSON.stringify(build({ connId: CONN_ID_MARK, uptimeMs: UPTIME_MARK })) };
      variants.set(key, cached);
    }
    const payload = cached.json
      .replace(`"${CONN_ID_MARK}"`, JSON.stringify(connection.connId))
      .replace(String(UPTIME_MARK), String(connection.uptimeMs));
    return `{"type":"res","id":${JSON.stringify(id)},"ok":true,"payload":${payload}}`;
  }
}
