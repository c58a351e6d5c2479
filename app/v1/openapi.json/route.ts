import { env } from "@/server/env";
import { openApiDocument } from "@/server/openapi";

// GET /v1/openapi.json – the API description, public like any API reference
export function GET(): Response {
  return Response.json(openApiDocument(env().PUBLIC_BASE_URL), { headers: { "Cache-Control": "public, max-age=300" } });
}
