import { and, eq, getTableColumns, isNull, is, SQL, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { placeholder, placeholders, preparedOnce } from "@/db/prepared-once";
import { idempotencyKeys, payments, type Payment } from "@/db/schema";
import type { PaymentStatus } from "@/server/domain/payment-status";
import { claimRecordCte, type ClaimRow, type ClaimStatement, type ClaimValues } from "@/server/services/idempotency/claim";
import { completeRecordStatement, type ResponseRecord } from "@/server/services/idempotency/completion";

/**
 * The statements of the busiest paths as prepared statements: the create's two writes and the
 * read behind `GET /v1/payments/{id}` (the poll). drizzle builds their SQL once (preparedOnce)
 * instead of on every request (building it was a quarter of create's CPU, and the
 * selection of 35 columns the largest part of a poll's).
 * Typed at the boundary; placeholders are untyped inside, so the casts stay in this file.
 */
type NewPayment = typeof payments.$inferInsert;

const INSERT_COLUMNS = [
  "id",
  "merchantId",
  "livemode",
  "amount",
  "currency",
  "method",
  "reference",
  "customerMsisdn",
  "network",
  "fee",
  "feeBearer",
  "chargedAmount",
  "status",
  "provider",
  "metadata",
  "idempotencyKey",
  "paymentLinkId",
  "checkoutSessionId",
  "expiresAt",
  "createdAt",
  "updatedAt",
] as const satisfies readonly (keyof NewPayment)[];

export type InsertablePayment = Pick<Required<NewPayment>, (typeof INSERT_COLUMNS)[number]>;

/**
 * Records the accepted prompt, once: compare-and-set on prompt_sent_at still null and the status
 * still the one the create read (a callback, the expiry or reconciliation that moved the payment
 * meanwhile makes the row the create's answer, not the copy it holds).
 */
const promptSentUpdate = (db: Db) =>
  db
    .update(payments)
    .set({ promptSentAt: placeholder<Date>("at"), providerReference: placeholder<string | null>("ref"), updatedAt: placeholder<Date>("at") })
    .where(and(eq(payments.id, placeholder<string>("id")), isNull(payments.promptSentAt), eq(payments.status, placeholder<PaymentStatus>("was"))))
    .returning({ id: payments.id });

/** The placeholder of a payment's column in the statement that also claims the key: apart from the claim's. */
const paymentPlaceholder = (column: string) => `payment.${column}`;
/** Each inserted column with its placeholder's name, named once rather than on every create. */
const PAYMENT_PLACEHOLDERS = INSERT_COLUMNS.map((column) => [column, paymentPlaceholder(column)] as const);

/**
 * The SELECT list that feeds `INSERT INTO payments SELECT …`: every column in the table's order
 * (drizzle names them all), the inserted ones from placeholders encoded by their column and cast
 * to its type (a SELECT does not take its parameters' types from the target), the others their
 * default or NULL.
 */
function insertedRowValues(): SQL {
  const inserted = new Set<string>(INSERT_COLUMNS);
  const values = Object.entries(getTableColumns(payments)).map(([key, column]) => {
    if (inserted.has(key)) return sql`${sql.param(sql.placeholder(paymentPlaceholder(key)), column)}::${sql.raw(column.getSQLType())}`;
    if (!column.hasDefault) return sql`null`;
    if (typeof column.default === "number") return sql.raw(String(column.default));
    if (is(column.default, SQL)) return column.default;
    throw new Error(`payments.${key}: its default cannot be written into a SELECT; insert the column`);
  });
  return sql.join(values, sql`, `);
}

/**
 * The key's record and the payment in one statement: the payment is inserted only if the record
 * was (the key is new), and the row answers the claim (`ClaimRow`) with the payment attached.
 */
function buildClaimAndInsert(db: Db) {
  const { ins, claim } = claimRecordCte(db);
  const pay = db.$with("pay").as(
    db
      .insert(payments)
      .select(sql`select ${insertedRowValues()} from ${ins}`)
      .returning(),
  );
  return db
    .with(ins, pay)
    .select()
    .from(claim)
    .leftJoin(pay, sql`true`)
    .prepare("payments_claim_insert");
}

const prepared = {
  insert: preparedOnce((db) => db.insert(payments).values(placeholders(INSERT_COLUMNS)).returning().prepare("payments_insert")),
  claimAndInsert: preparedOnce(buildClaimAndInsert),
  promptSent: preparedOnce((db) => promptSentUpdate(db).prepare("payments_prompt_sent")),
  // The same, and in the same statement the request's idempotency record completed with the
  // response, if (and only if) the prompt was recorded. A row back means both happened.
  promptSentAndStored: preparedOnce((db) => {
    const moved = db.$with("moved").as(promptSentUpdate(db));
    return completeRecordStatement(db.with(moved), sql`exists (select 1 from ${moved})`)
      .returning({ key: idempotencyKeys.key })
      .prepare("payments_prompt_sent_stored");
  }),
  // By id alone, the owner checked by the caller: see owned() in server/domain/tenancy.ts.
  byId: preparedOnce((db) =>
    db
      .select()
      .from(payments)
      .where(eq(payments.id, placeholder<string>("id")))
      .prepare("payments_by_id"),
  ),
};

export async function insertPaymentRow(db: Db, values: InsertablePayment): Promise<Payment> {
  const [row] = (await prepared.insert(db).execute(values)) as Payment[];
  return row!;
}

/**
 * The statement that claims the request's Idempotency-Key and inserts the payment with it (see
 * `KeyClaim`): one round trip and one commit for both.
 */
export function claimAndInsertPayment(db: Db, values: InsertablePayment): ClaimStatement<ClaimRow & { written: Payment | null }> {
  return async (claim: ClaimValues) => {
    const params: Record<string, unknown> = { ...claim };
    for (const [column, name] of PAYMENT_PLACEHOLDERS) params[name] = values[column];
    const [row] = await prepared.claimAndInsert(db).execute(params);
    return row && { ...row.claim, written: (row.pay as Payment | null) ?? null };
  };
}

/**
 * The payment as it is once its prompt is recorded, or undefined when it was not waiting for one
 * (a callback or the expiry got there first). Only the id comes back: the three columns it sets
 * are known, so the row is not read back and decoded again. With the request's `response`
 * record, the same statement stores the response to the updated payment.
 */
export async function recordPromptSent(
  db: Db,
  payment: Payment,
  at: Date,
  providerReference: string | null,
  response?: ResponseRecord<Payment>,
): Promise<Payment | undefined> {
  const updated: Payment = { ...payment, promptSentAt: at, providerReference, updatedAt: at };
  const values = { id: payment.id, at, ref: providerReference, was: payment.status };
  if (!response) return (await prepared.promptSent(db).execute(values)).length > 0 ? updated : undefined;

  const completion = response.completionFor(updated);
  const [stored] = await prepared.promptSentAndStored(db).execute({ ...values, ...completion });
  if (stored) {
    response.completedWith(completion);
    return updated;
  }
  // Not stored: the prompt was not recorded (a callback or the expiry got there first), or it
  // was and the record has another holder now. Either way the caller reads the current row.
  return undefined;
}

/** The payment with this id, whoever's it is: callers answer for the owner (owned()). */
export async function findPayment(db: Db, id: string): Promise<Payment | undefined> {
  const [row] = (await prepared.byId(db).execute({ id })) as Payment[];
  return row;
}

const lockById = preparedOnce((db) =>
  db
    .select()
    .from(payments)
    .where(eq(payments.id, placeholder<string>("id")))
    .for("update")
    .prepare("payments_lock_by_id"),
);

/**
 * The payment with this id, whoever's it is, locked (FOR UPDATE) until the end of the transaction
 * that `db` must be: the read before a compare-and-set that depends on what it read.
 */
export async function lockPayment(db: Db, id: string): Promise<Payment | undefined> {
  const [row] = (await lockById(db).execute({ id })) as Payment[];
  return row;
}
