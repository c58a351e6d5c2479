import { CheckoutSessions } from "@/components/dashboard/checkout-sessions/checkout-sessions";

export const metadata = { title: "Checkout sessions" };

// /dashboard/checkout-sessions – the checkout sessions of the current environment, and the way to each one's attempts
export default function CheckoutSessionsPage() {
  return (
    <>
      <h1>Checkout sessions</h1>
      <CheckoutSessions />
    </>
  );
}
