import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { isServiceError } from "@/server/domain/errors";
import { MAX_BATCH_SIZE } from "@/server/domain/staff";
import { withBoundedBody } from "@/server/http/body";
import { sentFromAnotherSite } from "@/server/http/same-origin";
import { createTrpcContext } from "@/server/trpc/context";
import { appRouter } from "@/server/trpc/routers/_app";

// /api/trpc/* – the dashboard's procedures (session cookie; role and merchant checked per call).
// Mutations carry the session cookie, so a page on another site must not be able to send them.
async function handler(req: Request): Promise<Response> {
  if (sentFromAnotherSite(req.method, req.headers)) return Response.json({ error: { message: "Cross-site requests are refused." } }, { status: 403 });
  let request: Request;
  try {
    // tRPC parses whatever body it is sent, before any procedure looks at the session.
    request = await withBoundedBody(req);
  } catch (e) {
    if (!isServiceError(e)) throw e;
    return Response.json({ error: { message: e.message } }, { status: 400 });
  }
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req: request,
    router: appRouter,
    createContext: createTrpcContext,
    maxBatchSize: MAX_BATCH_SIZE,
    // A merchant's data, and once a generated password: never kept by a browser or a proxy.
    responseMeta: () => ({ headers: new Headers({ "Cache-Control": "no-store, private" }) }),
  });
}

export { handler as GET, handler as POST };
