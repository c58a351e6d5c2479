import { randomUUID } from "node:crypto";
import type { Metadata } from "next";
import { headers } from "next/headers";
import { notFound } from "next/navigation";
import { connection } from "next/server";
import { cache } from "react";
import { HostedCheckout } from "@/components/checkout/hosted-checkout";
import { AMOUNT_CHANGED_PARAM } from "@/components/checkout/pay-form-state";
import { HostedUnavailable } from "@/components/checkout/unavailable";
import { loggingFaults } from "@/server/http/faults";
import { viewPaymentLinkPage } from "@/server/services/hosted/view-payment-link-page";
import { systemContext } from "@/server/system-context";
import { payLinkAction } from "../../actions";
import { ownAttemptKeys } from "../../own-attempts";

type Props = { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

const view = cache(async (linkId: string, paymentId: string | undefined) =>
  loggingFaults("payment link page could not be loaded", async () =>
    viewPaymentLinkPage(await systemContext(), { linkId, paymentId, ownAttemptKeys: await ownAttemptKeys() }),
  ),
);

async function load({ params, searchParams }: Props) {
  await connection();
  const [{ id }, query] = await Promise.all([params, searchParams]);
  const paymentId = typeof query.payment === "string" ? query.payment : undefined;
  return { id, paymentId, loaded: await view(id, paymentId), amountChanged: query[AMOUNT_CHANGED_PARAM] !== undefined };
}

export async function generateMetadata(props: Props): Promise<Metadata> {
  const { loaded } = await load(props);
  const title = !loaded.ok ? "Payment page unavailable" : loaded.value ? `Pay ${loaded.value.merchant_name}` : "Payment link not found";
  return { title, robots: { index: false } };
}

// /pay/{plink_id} – a payment link's page; `?payment=` follows the attempt made on it
export default async function PaymentLinkPage(props: Props) {
  const { id, paymentId, loaded, amountChanged } = await load(props);
  if (!loaded.ok) {
    // Trying again asks for the same attempt the page was following.
    const path = `/pay/${encodeURIComponent(id)}`;
    const followed = paymentId ? `?payment=${encodeURIComponent(paymentId)}` : "";
    return <HostedUnavailable reference={loaded.reference} retryPath={`${path}${followed}`} statusPath={`${path}/status${followed}`} />;
  }
  const page = loaded.value;
  if (!page) notFound();
  const nonce = (await headers()).get("x-nonce") ?? undefined;
  return <HostedCheckout page={page} action={payLinkAction.bind(null, id)} attemptKey={randomUUID()} amountChanged={amountChanged} nonce={nonce} />;
}
