import type { NextRequest } from "next/server";
import { currentStaff, staffServiceContext } from "@/server/auth/current-staff";
import { log } from "@/server/log";
import { exportFileName, exportPayments } from "@/server/services/payments/export-payments";
import { staffPaymentSelection } from "@/server/schemas/payments";
import { staffPaymentFilters } from "@/server/services/payments/list-payments";

// GET /dashboard/payments/export – the filtered payments as a CSV download, streamed a page at a time
export async function GET(req: NextRequest): Promise<Response> {
  // proxy.ts turned away requests without a session cookie; this loads the staff member again,
  // so a removed user's still-valid cookie exports nothing.
  const { base, session: me, livemode } = await currentStaff();
  if (!me) return new Response("Sign in again to export payments.\n", { status: 401, headers: { "content-type": "text/plain; charset=utf-8" } });

  // The payments page's selection, as its export link carries it (exportHref).
  const parsed = staffPaymentSelection.safeParse(Object.fromEntries(req.nextUrl.searchParams));
  if (!parsed.success) return new Response("Those filters are not valid; export again from the payments page.\n", { status: 400, headers: { "content-type": "text/plain; charset=utf-8" } });

  const ctx = staffServiceContext(base, me, livemode);
  const chunks = exportPayments(ctx, staffPaymentFilters(parsed.data));
  const encoder = new TextEncoder();
  // `pull` runs only when the client has read what was sent: a slow download reads the database slowly.
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const next = await chunks.next();
          if (next.done) controller.close();
          else controller.enqueue(encoder.encode(next.value));
        } catch (e) {
          log.error("payments export failed", { error: e instanceof Error ? e.message : String(e) });
          controller.error(e);
        }
      },
      async cancel() {
        await chunks.return(undefined);
      },
    },
    { highWaterMark: 1 },
  );
  return new Response(body, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="${exportFileName(livemode, ctx.clock.now())}"`,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  });
}
