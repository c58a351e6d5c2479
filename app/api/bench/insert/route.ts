import { insertFloorRow } from "@/server/bench/floor";
import { env } from "@/server/env";

export const dynamic = "force-dynamic";

// POST /api/bench/insert – `npm run bench`'s floor: read the body, one INSERT, answer 201.
// Exists only with BENCH_ROUTES=true; otherwise it is a plain 404.
export async function POST(request: Request): Promise<Response> {
  if (!env().BENCH_ROUTES) return new Response("Not Found", { status: 404 });
  await insertFloorRow(await request.text());
  return new Response('{"ok":true}', { status: 201, headers: { "Content-Type": "application/json", "Cache-Control": "no-store" } });
}
