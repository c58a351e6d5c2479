import { readFloorRows } from "@/server/bench/floor";
import { env } from "@/server/env";

export const dynamic = "force-dynamic";

// GET /api/bench/read?merchant=… – `npm run bench`'s read floor: one indexed SELECT, rows as JSON.
// Exists only with BENCH_ROUTES=true; otherwise it is a plain 404.
export async function GET(request: Request): Promise<Response> {
  if (!env().BENCH_ROUTES) return new Response("Not Found", { status: 404 });
  const merchant = new URL(request.url).searchParams.get("merchant") ?? "";
  return new Response(await readFloorRows(merchant), { headers: { "Content-Type": "application/json", "Cache-Control": "no-store" } });
}
