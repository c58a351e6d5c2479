/** Whose an object is: a merchant, in one environment. */
export type Tenancy = { merchantId: string; livemode: boolean };

/**
 * The row if it is this merchant's in this environment; otherwise undefined, exactly as for a row
 * that never existed.
 *
 * For reads by id that check the owner here rather than in SQL: `id = $1 and merchant_id = $2 and
 * livemode = $3` can be served by any index that starts (merchant_id, livemode), and a prepared
 * statement's generic plan, made while the table was small, may pick one whose next column is not
 * the id (payments_status_list_idx, events_type_list_idx) and then walk every row of the merchant
 * on every read. Selected by id alone, the primary key is the only way in.
 */
export function owned<T extends Tenancy>(row: T | undefined, owner: { merchant: { id: string }; livemode: boolean }): T | undefined {
  return row && row.merchantId === owner.merchant.id && row.livemode === owner.livemode ? row : undefined;
}
