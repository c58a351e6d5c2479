import type { NextRequest } from "next/server";
import { currentStaff, staffServiceContext } from "@/server/auth/current-staff";
import { loggingFaults } from "@/server/http/faults";
import { log } from "@/server/log";
import { exportFileName, exportPayments } from "@/server/services/payments/export-payments";
import { staffPaymentSelection } from "@/server/schemas/payments";
import { staffPaymentFilters } from "@/server/services/payments/list-payments";
import { EXPORT_MODE_PARAM, signInPath } from "@/server/domain/staff";

/** The payments list the export was asked from (its Referer, on this site), or the list itself. */
function listPath(req: NextRequest): string {
  const referer = req.headers.get("referer") ?? "";
  const from = URL.canParse(referer) ? new URL(referer) : null;
  return from && from.host === req.headers.get("host") && from.pathname === "/dashboard/payments" ? `${from.pathname}${from.search}` : "/dashboard/payments";
}

/** What a person who followed the export link reads instead of a file. */
function plainText(status: number, text: string): Response {
  return new Response(text, { status, headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" } });
}

// GET /dashboard/payments/export – the filtered payments as a CSV download, streamed a page at a time
export async function GET(req: NextRequest): Promise<Response> {
  // proxy.ts turned away requests without a session cookie; this loads the staff member again,
  // so a removed user's still-valid cookie exports nothing. A session that has ended meanwhile
  // (signed out everywhere, say) goes to sign in, and back to the list the export was asked from.
  const staff = await loggingFaults("payments export could not load its session", currentStaff);
  if (!staff.ok) return plainText(500, `The export could not start: something went wrong on our side. Try again in a moment; if this goes on, report it with this reference: ${staff.reference}\n`);
  const { base, session: me, livemode: chosen } = staff.value;
  if (!me) return new Response(null, { status: 303, headers: { location: signInPath(listPath(req)) } });

  // The payments page's selection and mode, as its export link carries them (exportHref).
  const { [EXPORT_MODE_PARAM]: mode, ...selection } = Object.fromEntries(req.nextUrl.searchParams);
  const parsed = staffPaymentSelection.safeParse(selection);
  if (!parsed.success || (mode !== undefined && mode !== "test" && mode !== "live"))
    return plainText(400, "Those filters are not valid; export again from the payments page.\n");
  // What the page lists: the mode it was drawn in, whatever another tab has switched to since.
  const livemode = mode === undefined ? chosen : mode === "live";

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
          log.error("payments export failed", { error: e });
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
