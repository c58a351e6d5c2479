import { PaymentLinks } from "@/components/dashboard/payment-links/payment-links";

export const metadata = { title: "Payment links" };

// /dashboard/payment-links – create, list, copy and deactivate links of the current environment
export default function PaymentLinksPage() {
  return (
    <>
      <h1>Payment links</h1>
      <PaymentLinks />
    </>
  );
}
