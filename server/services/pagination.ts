import { and, asc, desc, gt, lt, type SQL } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";

export type PageRequest = { limit: number; startingAfter?: string; endingBefore?: string };
export type Page<T> = { data: T[]; hasMore: boolean };

/**
 * Keyset pagination over a time-sortable id column, newest first. `startingAfter` walks to older
 * objects, `endingBefore` to newer ones; either way one extra row tells whether more exist, and no
 * OFFSET is ever used, so page 50,000 costs what page 1 does.
 *
 * `scope` are the columns the query pins with equality (merchant, livemode), in the order of the
 * list index. They lead the ORDER BY: it sorts the same, but only the list index can serve it.
 * Ordered by id alone, PostgreSQL may walk the primary key backwards and filter, which for a big
 * merchant means reading every newer row of every other merchant first (17 ms instead of 0.1 ms
 * for a page, measured on a million-row merchant behind 22,000 newer rows of others).
 */
export function keyset(idColumn: AnyPgColumn, page: PageRequest, where: SQL | undefined, scope: AnyPgColumn[] = []) {
  const backwards = page.endingBefore !== undefined;
  const cursor = backwards
    ? gt(idColumn, page.endingBefore!)
    : page.startingAfter !== undefined
      ? lt(idColumn, page.startingAfter)
      : undefined;
  return {
    where: and(where, cursor),
    orderBy: [...scope, idColumn].map((c) => (backwards ? asc(c) : desc(c))),
    limit: page.limit + 1,
    finish<T>(rows: T[]): Page<T> {
      const hasMore = rows.length > page.limit;
      const data = rows.slice(0, page.limit);
      return { data: backwards ? data.reverse() : data, hasMore };
    },
  };
}
