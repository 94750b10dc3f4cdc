import { type Handler, Hono } from "hono";
import { errorBody } from "../../protocol/http";
import type { AppEnv } from "../context";
import { openApiDocument } from "../openapi/document";
import type { Operation } from "../openapi/operations";

/**
 * The OpenAPI document of the app's `operations` and a human-readable reference page rendering
 * it (Swagger UI, offline).
 */
export function docsRoutes(operations: readonly Operation[]): Hono<AppEnv> {
  const docs = new Hono<AppEnv>();
  // Public and free of secrets: any origin may load it (other tools render it too).
  docs.get("/openapi.json", async (c) => {
    c.header("Access-Control-Allow-Origin", "*");
    return c.json(await openApiDocument(operations));
  });
  docs.get("/docs", (c) => c.html(REFERENCE_PAGE));
  docs.get("/docs/assets/:file", serveAsset);
  return docs;
}

/** The files of the swagger-ui-dist package the page loads (scripts/assets.mjs puts them in the ASSETS folder). */
const PAGE_ASSETS = new Set(["swagger-ui-bundle.js", "swagger-ui.css"]);

const serveAsset: Handler<AppEnv, "/docs/assets/:file"> = async (c) => {
  const file = c.req.param("file");
  if (!PAGE_ASSETS.has(file)) return c.json(errorBody("not_found", `No such file: ${file}`), 404);
  const asset = await c.env.ASSETS.fetch(new Request(new URL(`/docs/assets/${file}`, c.req.url)));
  if (!asset.ok) return c.json(errorBody("not_found", `No such file: ${file}`), 404);
  return new Response(asset.body, {
    headers: {
      "content-type": file.endsWith(".css") ? "text/css; charset=utf-8" : "text/javascript; charset=utf-8",
      "cache-control": "public, max-age=3600",
    },
  });
};

// Relative URLs, so the page works wherever the service is mounted. validatorUrl: null keeps
// Swagger UI from calling its public validator: the page needs nothing but this service.
const REFERENCE_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>openclaw-sessions-edge API reference</title>
<link rel="stylesheet" href="docs/assets/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="docs/assets/swagger-ui-bundle.js"></script>
<script>
window.ui = SwaggerUIBundle({
  url: "openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  validatorUrl: null,
  docExpansion: "list",
  defaultModelsExpandDepth: 0,
});
</script>
</body>
</html>
`;
