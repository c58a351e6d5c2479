import { newId } from "@/server/domain/ids";
import { notFoundRoute, trailingSlashAnswer } from "@/server/http/api-route";
import { env } from "@/server/env";
import { openApiDocument } from "@/server/openapi";

// GET /v1/openapi.json – the API description, public like any API reference
export function GET(request: Request): Response {
  // DESIGN.md: every /v1 response carries Request-Id.
  const requestId = newId("request");
  return (
    trailingSlashAnswer(request.method, new URL(request.url), requestId) ??
    Response.json(openApiDocument(env().PUBLIC_BASE_URL), { headers: { "Cache-Control": "public, max-age=300", "Request-Id": requestId } })
  );
}

// Other methods get the 404 envelope, as on every /v1 path.
export { notFoundRoute as POST, notFoundRoute as PUT, notFoundRoute as PATCH, notFoundRoute as DELETE, notFoundRoute as OPTIONS };
