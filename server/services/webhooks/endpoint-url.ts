import { invalidParam } from "@/server/domain/errors";
import type { ServiceContext } from "@/server/context";
import { env } from "@/server/env";
import { checkWebhookUrl, type AddressPolicy } from "@/server/webhooks/address-guard";

export function webhookAddressPolicy(): AddressPolicy {
  return { allowPrivateNetworks: env().WEBHOOK_ALLOW_PRIVATE_NETWORKS };
}

/**
 * The URL as it will be stored, or `parameter_invalid` on `url` saying why not: https in live mode,
 * and a host that is not (and does not resolve to) a private, loopback or link-local address.
 * The same guard runs again when each delivery connects, so a host that resolves elsewhere later
 * (DNS rebinding) is caught there.
 */
export async function vetEndpointUrl(ctx: ServiceContext, raw: string): Promise<string> {
  const check = await checkWebhookUrl(raw, { livemode: ctx.livemode, policy: webhookAddressPolicy() });
  if (!check.ok) throw invalidParam("url", check.reason);
  return check.url.href;
}
