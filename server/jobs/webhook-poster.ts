import { DELIVERY_TIMEOUT_MS } from "@/server/domain/webhooks";
import { webhookAddressPolicy } from "@/server/services/webhooks/endpoint-url";
import { WebhookPoster } from "@/server/webhooks/post-webhook";

const holder = globalThis as unknown as { __mariWebhookPoster?: WebhookPoster };

/** One keep-alive poster per process: sockets to a merchant's endpoint are reused across deliveries. */
export function sharedWebhookPoster(): WebhookPoster {
  holder.__mariWebhookPoster ??= new WebhookPoster({ policy: webhookAddressPolicy(), timeoutMs: DELIVERY_TIMEOUT_MS });
  return holder.__mariWebhookPoster;
}
