import { Suspense } from "react";
import { PaymentsList } from "@/components/dashboard/payments/payments-list";
import { Loading } from "@/components/ui/states";

export const metadata = { title: "Payments" };

// /dashboard/payments – search, filter and export payments
export default function PaymentsPage() {
  return (
    <Suspense fallback={<Loading what="payments" />}>
      <PaymentsList />
    </Suspense>
  );
}
