import { newId } from "@/server/domain/ids";
import { notFoundRoute } from "@/server/http/api-route";
import { env } from "@/server/env";
import { openApiDocument } from "@/server/openapi";

// GET /v1/openapi.json – the API description, public like any API reference
export function GET(): Response {
  return Response.json(openApiDocument(env().PUBLIC_BASE_URL), {
    // DESIGN.md: every /v1 response carries Request-Id.
    headers: { "Cache-Control": "public, max-age=300", "Request-Id": newId("request") },
  });
}

// Other methods get the 404 envelope, as on every /v1 path.
export { notFoundRoute as POST, notFoundRoute as PUT, notFoundRoute as PATCH, notFoundRoute as DELETE, notFoundRoute as OPTIONS };
