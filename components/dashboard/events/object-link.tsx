import Link from "next/link";

/**
 * An event's object by its id, as a link to the dashboard page that shows it: a payment, a
 * settlement or an endpoint its own page; a refund or a completed checkout session the page of
 * the payment it belongs to. Objects without a page (a payment link) show their id alone.
 */
export function ObjectLink({ object }: { object: Record<string, unknown> }) {
  const id = typeof object.id === "string" ? object.id : null;
  if (!id) return <span className="muted">—</span>;
  const payment = typeof object.payment === "string" ? object.payment : null;
  const href = pageOf(id, payment);
  if (!href) return <code>{id}</code>;
  return (
    <Link href={href} title={payment && !id.startsWith("pay_") ? `Of payment ${payment}` : undefined}>
      {id}
    </Link>
  );
}

function pageOf(id: string, payment: string | null): string | null {
  if (id.startsWith("pay_")) return `/dashboard/payments/${id}`;
  if (id.startsWith("stl_")) return `/dashboard/settlements/${id}`;
  if (id.startsWith("we_")) return `/dashboard/webhooks/${id}`;
  if ((id.startsWith("re_") || id.startsWith("cs_")) && payment) return `/dashboard/payments/${payment}`;
  return null;
}
