import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { getDb } from "@/db/client";

/**
 * Makes the completion of one idempotency key's record fail, as a database that goes away between
 * a create's write and the record of its answer would: a trigger refusing that one UPDATE. Returns
 * what lets it through again.
 */
export async function refuseCompletion(key: string): Promise<() => Promise<void>> {
  const db = await getDb();
  const name = `refuse_completion_${randomBytes(6).toString("hex")}`;
  await db.execute(sql.raw(`create function ${name}() returns trigger language plpgsql as $$ begin raise exception 'completion refused'; end $$`));
  await db.execute(
    sql.raw(
      `create trigger ${name} before update on idempotency_keys for each row when (new.key = '${key.replaceAll("'", "''")}' and new.state = 'completed') execute function ${name}()`,
    ),
  );
  return async () => {
    await db.execute(sql.raw(`drop trigger ${name} on idempotency_keys`));
    await db.execute(sql.raw(`drop function ${name}()`));
  };
}
