import type { Payment } from "@/db/schema";
import { resourceMissing } from "@/server/domain/errors";
import { isId } from "@/server/domain/ids";
import { owned } from "@/server/domain/tenancy";
import type { ServiceContext } from "@/server/context";
import { findPayment } from "./prepared";

/** Another merchant's or environment's payment is exactly as missing as one that never existed. */
export async function getPayment(ctx: ServiceContext, id: string): Promise<Payment> {
  // Not shaped like an id (path params arrive decoded, NUL included): missing, without asking the database.
  if (!isId("payment", id)) throw resourceMissing("payment", id);
  const row = owned(await findPayment(ctx.db, id), ctx);
  if (!row) throw resourceMissing("payment", id);
  return row;
}
