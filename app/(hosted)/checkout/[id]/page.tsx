import { randomUUID } from "node:crypto";
import type { Metadata } from "next";
import { headers } from "next/headers";
import { notFound } from "next/navigation";
import { connection } from "next/server";
import { cache } from "react";
import { HostedCheckout } from "@/components/checkout/hosted-checkout";
import { AMOUNT_CHANGED_PARAM, IN_PROGRESS_PARAM } from "@/components/checkout/pay-form-state";
import { HostedUnavailable } from "@/components/checkout/unavailable";
import { loggingFaults } from "@/server/http/faults";
import { viewCheckoutPage } from "@/server/services/hosted/view-checkout-page";
import { systemContext } from "@/server/system-context";
import { payCheckoutAction } from "../../actions";

type Props = { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

const view = cache(async (sessionId: string) =>
  loggingFaults("checkout page could not be loaded", async () => viewCheckoutPage(await systemContext(), sessionId)),
);

async function load({ params, searchParams }: Props) {
  await connection();
  const [{ id }, query] = await Promise.all([params, searchParams]);
  return { id, loaded: await view(id), amountChanged: query[AMOUNT_CHANGED_PARAM] !== undefined, refusedInProgress: query[IN_PROGRESS_PARAM] !== undefined };
}

export async function generateMetadata(props: Props): Promise<Metadata> {
  const { loaded } = await load(props);
  const title = !loaded.ok ? "Payment page unavailable" : loaded.value ? `Pay ${loaded.value.merchant_name}` : "Checkout not found";
  return { title, robots: { index: false } };
}

// /checkout/{cs_id} – a checkout session's page
export default async function CheckoutSessionPage(props: Props) {
  const { id, loaded, amountChanged, refusedInProgress } = await load(props);
  if (!loaded.ok) {
    const path = `/checkout/${encodeURIComponent(id)}`;
    return <HostedUnavailable reference={loaded.reference} retryPath={path} statusPath={`${path}/status`} />;
  }
  const page = loaded.value;
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
