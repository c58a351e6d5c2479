import { SettlementList } from "@/components/dashboard/settlements/settlements";

export const metadata = { title: "Settlements" };

// /dashboard/settlements – payout batches of the current environment
export default function SettlementsPage() {
  return (
    <>
      <h1>Settlements</h1>
      <SettlementList />
    </>
  );
}
