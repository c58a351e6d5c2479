import { EndpointList } from "@/components/dashboard/webhooks/endpoint-list";

export const metadata = { title: "Webhook endpoints" };

// /dashboard/webhooks – endpoints with their health; add one
export default function WebhooksPage() {
  return <EndpointList />;
}
