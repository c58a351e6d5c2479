import type { Db } from "@/db/client";
import type { Payment } from "@/db/schema";
import { MAX_ATTEMPT_KEYS } from "@/server/domain/hosted";
import { paymentOfAttempt, type PayableOrigin } from "../payments/pay-through-origin";

/**
 * The newest payment that one of `keys` made through `origin`, and which key made it: a page asks
 * with every attempt key its browser kept, since a later one may have been refused (another tab
 * had used the link) while an earlier one paid. At most MAX_ATTEMPT_KEYS are looked up.
 */
export async function attemptByKeys(
  db: Db,
  origin: Pick<PayableOrigin, "id" | "merchantId" | "livemode">,
  keys: readonly string[],
): Promise<{ payment: Payment; key: string } | undefined> {
  const asked = [...new Set(keys)].slice(0, MAX_ATTEMPT_KEYS);
  const found = await Promise.all(asked.map(async (key) => ({ key, payment: await paymentOfAttempt(db, origin, key) })));
  let newest: { payment: Payment; key: string } | undefined;
  // Payment ids sort by the time they were made.
  for (const { key, payment } of found) if (payment && (!newest || payment.id > newest.payment.id)) newest = { payment, key };
  return newest;
}
