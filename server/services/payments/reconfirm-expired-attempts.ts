import { and, desc, eq, gt } from "drizzle-orm";
import { payments } from "@/db/schema";
import { LATE_CONFIRMATION_WINDOW_MS } from "@/server/domain/hosted";
import type { BaseContext } from "@/server/context";
import { log } from "@/server/log";
import type { ProviderRegistry } from "@/server/providers/port";
import { applyProviderOutcome } from "./apply-provider-outcome";
import { askProvider } from "./ask-provider";

/** At most this many recent expired attempts are asked about before one more is made. */
const MAX_ASKED = 3;

/**
 * Before a customer tries again on a checkout session or a single-use link, the provider is asked
 * once more about the attempts there that expired within LATE_CONFIRMATION_WINDOW_MS. A prompt
 * whose PIN was entered as it ran out is confirmed seconds later, often just when the customer taps
 * Pay again: found paid now, it completes the session (or uses the link) before the new attempt is
 * claimed, which is then refused and the page shows the receipt, instead of a second PIN prompt
 * and a second charge for one order. Only a confirmed success moves an expired payment.
 *
 * Best effort: a fault here is logged and the attempt goes on, as it would have without asking.
 */
export async function reconfirmExpiredAttempts(
  ctx: BaseContext & { providers: ProviderRegistry },
  origin: { paymentLinkId: string } | { checkoutSessionId: string },
): Promise<void> {
  try {
    const since = new Date(ctx.clock.now().getTime() - LATE_CONFIRMATION_WINDOW_MS);
    const through = "paymentLinkId" in origin ? eq(payments.paymentLinkId, origin.paymentLinkId) : eq(payments.checkoutSessionId, origin.checkoutSessionId);
    const expired = await ctx.db
      .select()
      .from(payments)
      .where(and(through, eq(payments.status, "expired"), gt(payments.expiredAt, since)))
      .orderBy(desc(payments.id))
      .limit(MAX_ASKED);
    await Promise.all(
      expired.map(async (payment) => {
        const outcome = await askProvider(ctx.providers, payment);
        if (outcome.kind === "succeeded") await applyProviderOutcome(ctx, payment, outcome);
      }),
    );
  } catch (error) {
    log.warn("expired attempts not asked about again", { error, origin });
  }
}
