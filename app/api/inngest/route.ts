import type { NextRequest } from "next/server";
import { serve } from "inngest/next";
import { env } from "@/server/env";
import { inngest } from "@/server/jobs/inngest/client";
import { functions } from "@/server/jobs/inngest/functions";

const handlers = serve({ client: inngest, functions, serveOrigin: env().inngestServeOrigin });

/**
 * With the local runner driving the timers, nothing is served here: 404 (the SDK, with no keys,
 * answered anyone 500 and logged an error). A body that is not JSON is the caller's fault: 400
 * (the SDK's own parse threw, and Next answered a bare 500).
 */
function guarded(handler: (request: NextRequest, context: unknown) => Promise<unknown>) {
  return async (request: NextRequest, context: unknown): Promise<Response> => {
    if (env().jobDriver !== "inngest") return new Response("Not Found", { status: 404, headers: { "Cache-Control": "no-store" } });
    try {
      return (await handler(request, context)) as Response;
    } catch (e) {
      if (e instanceof SyntaxError) return Response.json({ message: "The body is not JSON." }, { status: 400, headers: { "Cache-Control": "no-store" } });
      throw e;
    }
  };
}

// GET|POST|PUT /api/inngest – Inngest invokes the durable functions here
export const GET = guarded(handlers.GET);
export const POST = guarded(handlers.POST);
export const PUT = guarded(handlers.PUT);
