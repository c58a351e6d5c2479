import { randomUUID } from "node:crypto";
import type { Metadata } from "next";
import { headers } from "next/headers";
import { notFound } from "next/navigation";
import { connection } from "next/server";
import { cache } from "react";
import { HostedCheckout } from "@/components/checkout/hosted-checkout";
import { AMOUNT_CHANGED_PARAM, IN_PROGRESS_PARAM } from "@/components/checkout/pay-form-state";
import { viewCheckoutPage } from "@/server/services/hosted/view-checkout-page";
import { systemContext } from "@/server/system-context";
import { payCheckoutAction } from "../../actions";

type Props = { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

const view = cache(async (sessionId: string) => viewCheckoutPage(await systemContext(), sessionId));

async function load({ params, searchParams }: Props) {
  await connection();
  const [{ id }, query] = await Promise.all([params, searchParams]);
  return { id, page: await view(id), amountChanged: query[AMOUNT_CHANGED_PARAM] !== undefined, refusedInProgress: query[IN_PROGRESS_PARAM] !== undefined };
}

export async function generateMetadata(props: Props): Promise<Metadata> {
  const { page } = await load(props);
  return { title: page ? `Pay ${page.merchant_name}` : "Checkout not found", robots: { index: false } };
}

// /checkout/{cs_id} – a checkout session's page
export default async function CheckoutSessionPage(props: Props) {
  const { id, page, amountChanged, refusedInProgress } = await load(props);
  if (!page) notFound();
  const nonce = (await headers()).get("x-nonce") ?? undefined;
  return (
    <HostedCheckout
      page={page}
      action={payCheckoutAction.bind(null, id)}
      attemptKey={randomUUID()}
      amountChanged={amountChanged}
      refusedInProgress={refusedInProgress}
      nonce={nonce}
    />
  );
}
