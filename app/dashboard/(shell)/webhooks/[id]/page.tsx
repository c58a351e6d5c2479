import { EndpointDetail } from "@/components/dashboard/webhooks/endpoint-detail";

export const metadata = { title: "Webhook endpoint" };

// /dashboard/webhooks/[id] – one endpoint: health, settings, actions, recent deliveries
export default async function WebhookEndpointPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <EndpointDetail id={id} />;
}
