import type { WebhookEndpoint } from "@/db/schema";
import type { ServiceContext } from "@/server/context";
import type { SecurityAction, SecurityDetail } from "@/server/domain/security-log";
import type { SecurityEntry } from "@/server/services/security-log/record-security-event";

/** A change to an endpoint, as the security log records it: named by its URL, in its environment. */
export function endpointEntry(ctx: ServiceContext, action: SecurityAction, endpoint: WebhookEndpoint, detail?: SecurityDetail): SecurityEntry {
  return { merchantId: ctx.merchant.id, action, livemode: endpoint.livemode, target: { id: endpoint.id, label: endpoint.url }, detail };
}
