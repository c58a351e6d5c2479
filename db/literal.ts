import { sql, type SQL } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";

/** The values it inlines: the schema's enum constants, never input. */
const CONSTANT = /^[a-z][a-z0-9_]*$/;

/**
 * `column = 'a'` (or `column in ('a', 'b')`) with the values written into the statement's text
 * instead of bound as parameters: for the conditions of partial indexes (`… where status =
 * 'pending'` in db/schema).
 *
 * Every query runs as a prepared statement (see `preparing` in db/client.ts), and PostgreSQL soon
 * settles on a generic plan, made once without the parameters' values. That plan can use a partial
 * index only when the statement itself states the index's predicate: `status = $2` proves nothing
 * about `status = 'pending'`, so a claim of due work bound that way walks the whole table on every
 * pass, and the walk grows with the table.
 */
export function literalIn<C extends AnyPgColumn>(column: C, ...values: [C["_"]["data"], ...C["_"]["data"][]]): SQL {
  const quoted = values.map((v) => {
    if (typeof v !== "string" || !CONSTANT.test(v)) throw new Error(`literalIn: ${JSON.stringify(v)} is not a schema constant`);
    return `'${v}'`;
  });
  return quoted.length === 1 ? sql`${column} = ${sql.raw(quoted[0]!)}` : sql`${column} in (${sql.raw(quoted.join(", "))})`;
}
