import { PaymentDetail } from "@/components/dashboard/payments/payment-detail";

export const metadata = { title: "Payment" };

type Props = { params: Promise<{ id: string }> };

// /dashboard/payments/{id} – every field of a payment, its timeline, refund and resolve
export default async function PaymentPage({ params }: Props) {
  const { id } = await params;
  return <PaymentDetail id={id} />;
}
