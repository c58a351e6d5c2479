"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { ACTIONS, DataTable } from "@/components/ui/data-table";
import { Pager, type Cursor } from "@/components/ui/pager";
import { Badge } from "@/components/ui/status-badge";
import type { CheckoutSessionStatus } from "@/server/domain/checkout";
import { formatAmount } from "@/server/domain/money";
import { CopyButton, ListView, MiddleClip, formatWhen } from "../kit";
import { writeFilters } from "../payments/filters";
import { useTRPC } from "../trpc";

const STATUS_BADGE = {
  open: { tone: "wait", label: "Open" },
  complete: { tone: "good", label: "Complete" },
  expired: { tone: "neutral", label: "Expired" },
} as const satisfies Record<CheckoutSessionStatus, { tone: "good" | "wait" | "neutral"; label: string }>;

/**
 * The checkout sessions of the current environment, newest first: made through the API, one per
 * order, each paid at most once. Every Pay tried on a session's page is a payment of its own (its
 * reference the session's, numbered), which the Attempts link finds.
 */
export function CheckoutSessions() {
  const trpc = useTRPC();
  const [cursor, setCursor] = useState<Cursor>({});
  const q = useQuery(trpc.checkoutSessions.list.queryOptions({ limit: 20, ...cursor }));
  return (
    <>
      <p className="muted">
        Made through the API (<code>POST /v1/checkout_sessions</code>), one per order: a hosted page that takes one payment. Each Pay tried on it is a payment of its own, its
        reference the session&apos;s, numbered (<code>order-7#1</code>).
      </p>
      <ListView
        q={q}
        what="checkout sessions"
        empty={
          <>
            No checkout sessions in this environment yet. Make one with <code>POST /v1/checkout_sessions</code>.
          </>
        }
        paging={{ cursor, onNewest: () => setCursor({}) }}
      >
        {(page) => (
          <>
            <DataTable
              columns={["Reference", { label: "Amount", num: true }, "Status", "Expires", "Created", ACTIONS]}
              rows={page.data}
              row={(s) => (
                <tr key={s.id}>
                  <td className="cell-wrap ref-cell">
                    <MiddleClip text={s.reference} />
                    <div className="hint">
                      <code>{s.id}</code> ·{" "}
                      <Link href={`/dashboard/payments${writeFilters({ q: s.reference })}`} aria-label={`Attempts at ${s.reference}`}>
                        Attempts
                      </Link>
                    </div>
                  </td>
                  <td className="num">{formatAmount(s.amount, s.currency)}</td>
                  <td>
                    <Badge tone={STATUS_BADGE[s.status].tone}>{STATUS_BADGE[s.status].label}</Badge>
                    {s.payment ? (
                      <div className="hint">
                        Paid by <Link href={`/dashboard/payments/${s.payment}`}>its payment</Link>
                      </div>
                    ) : null}
                  </td>
                  <td className="cell-wrap">{formatWhen(s.expires_at)}</td>
                  <td className="cell-wrap">{formatWhen(s.created_at)}</td>
                  <td>{s.status === "open" ? <CopyButton text={s.url} label="Copy URL" /> : null}</td>
                </tr>
              )}
            />
            <Pager ids={page.data.map((s) => s.id)} hasMore={page.hasMore} cursor={cursor} onChange={setCursor} />
          </>
        )}
      </ListView>
    </>
  );
}
