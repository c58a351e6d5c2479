import { newId } from "@/server/domain/ids";
import { checkHealth } from "@/server/services/health";

export const dynamic = "force-dynamic";

// GET /api/health – 200 when the database answers, 503 otherwise; a Request-Id as every API answer has
export async function GET(): Promise<Response> {
  const health = await checkHealth();
  return Response.json(health, { status: health.status === "ok" ? 200 : 503, headers: { "Cache-Control": "no-store", "Request-Id": newId("request") } });
}
