import { randomUUID } from "node:crypto";
import type { Metadata } from "next";
import { headers } from "next/headers";
import { notFound } from "next/navigation";
import { connection } from "next/server";
import { cache } from "react";
import { HostedCheckout } from "@/components/checkout/hosted-checkout";
import { AMOUNT_CHANGED_PARAM } from "@/components/checkout/pay-form-state";
import { viewPaymentLinkPage } from "@/server/services/hosted/view-payment-link-page";
import { systemContext } from "@/server/system-context";
import { payLinkAction } from "../../actions";
import { ownAttemptKeys } from "../../own-attempts";

type Props = { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

const view = cache(async (linkId: string, paymentId: string | undefined) =>
  viewPaymentLinkPage(await systemContext(), { linkId, paymentId, ownAttemptKeys: await ownAttemptKeys() }),
);

async function load({ params, searchParams }: Props) {
  await connection();
  const [{ id }, query] = await Promise.all([params, searchParams]);
  return { id, page: await view(id, typeof query.payment === "string" ? query.payment : undefined), amountChanged: query[AMOUNT_CHANGED_PARAM] !== undefined };
}

export async function generateMetadata(props: Props): Promise<Metadata> {
  const { page } = await load(props);
  return { title: page ? `Pay ${page.merchant_name}` : "Payment link not found", robots: { index: false } };
}

// /pay/{plink_id} – a payment link's page; `?payment=` follows the attempt made on it
export default async function PaymentLinkPage(props: Props) {
  const { id, page, amountChanged } = await load(props);
  if (!page) notFound();
  const nonce = (await headers()).get("x-nonce") ?? undefined;
  return <HostedCheckout page={page} action={payLinkAction.bind(null, id)} attemptKey={randomUUID()} amountChanged={amountChanged} nonce={nonce} />;
}
