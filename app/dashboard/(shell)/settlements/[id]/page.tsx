import { SettlementDetail } from "@/components/dashboard/settlements/settlements";

export const metadata = { title: "Settlement" };

// /dashboard/settlements/[id] – one batch, its line items, and (live, admin) confirming its payout
export default async function SettlementPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <>
      <h1>
        Settlement <code>{id}</code>
      </h1>
      <SettlementDetail id={id} />
    </>
  );
}
